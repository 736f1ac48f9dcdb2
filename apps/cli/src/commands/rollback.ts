import { randomUUID } from "node:crypto";
import { Args, Flags } from "@oclif/core";
import {
  appendRunLogRecord,
  batchLine,
  cursorLine,
  encodeRunLogRecord,
  type Json,
  prepareTable,
  reloadInProgress,
  rollbackRecord,
  runPosition,
  SqlloadError,
  type TablePlan,
} from "@sqlload/core";
import { ExitCode } from "../exit-codes.js";
import { readTableLogs, stateText } from "../logged-state.js";
import { SqlloadCommand } from "../sqlload-command.js";

export default class Rollback extends SqlloadCommand {
  static override summary = "Make the next run of a table continue from the position an earlier run left.";
  static override description =
    `Appends a rollback record to the table's run log (nothing is deleted): the next run continues from where run RUN_ID left the table, its last window end for a windowed table, its logged state for a logged table, its cursor position otherwise. The record also notes the target's current maximum: if the table is changed by hand before the next run, the data wins and the rollback is dropped. A windowed re-load takes as many bounded runs as its windows need.

Without --yes it prints exactly what the next run will re-load (the cursor range, the windows and what the write strategy does with them), changes nothing and exits 1. delete_insert and merge replace the range; append would insert those rows again, so it is refused unless --allow-duplicates. \`sqlload plan\` shows a pending rollback on the table's cursor line. Run ids come from \`sqlload runs TABLE\`.`;
  static override examples = [
    "<%= config.bin %> rollback app__orders --to-run 3b1f2c4e-…",
    '<%= config.bin %> rollback app__orders --to-run 3b1f2c4e-… --reason "upstream fixed late rows" --yes',
  ];
  static override args = { table: Args.string({ description: "One table: app__orders.", required: true, ignoreStdin: true }) };
  static override flags = {
    "to-run": Flags.string({
      summary: "The run whose position the next run continues from (see `sqlload runs`).",
      required: true,
    }),
    yes: Flags.boolean({ summary: "Do it (without: only print what the next run would re-load)." }),
    "allow-duplicates": Flags.boolean({ summary: "Under append: accept that the re-load inserts those rows again." }),
    reason: Flags.string({ summary: "Why, shown by `plan` and `runs` (default: names the run)." }),
  };

  async run(): Promise<void> {
    const { flags, args } = await this.parse(Rollback);
    const { session } = await this.openProject(flags.project);
    try {
      const selected = await session.select([args.table]);
      if (selected.length !== 1) {
        throw new SqlloadError("SL114", `rollback takes one table; "${args.table}" selects ${selected.length}`, {
          hint: "Name one table, such as app__orders.",
        });
      }
      const table = selected[0]!;
      const [log] = await readTableLogs(session, selected);
      const name = log!.name;
      const settings = await session.tableSettings(table);
      const strategy = settings.writeStrategy ?? (settings.cursorColumn ? "delete_insert" : "replace");
      if (strategy === "replace") {
        throw new SqlloadError("SL504", `${name} is rebuilt on every run (replace): there is no position to roll back`, {
          table: name,
          hint: "Nothing to do: the next run reads everything anyway.",
        });
      }
      if (settings.lookbackFrom === "now") {
        throw new SqlloadError("SL504", `${name} reads from now minus lookback on every run: a rollback would be ignored`, {
          table: name,
          hint: "Re-load a range instead: `sqlload load TABLE --start-cursor A --end-cursor B`.",
        });
      }
      const building = reloadInProgress(log!.position.history);
      if (building) {
        // The build ignores rollbacks and the swap starts the table over, so one recorded now would be dropped.
        throw new SqlloadError(
          "SL504",
          `${name} is in the middle of a reload (started by run ${building.id}): a rollback now would be dropped at the swap`,
          {
            table: name,
            hint: "Finish the reload first (`sqlload load TABLE --until-caught-up`) and roll back afterwards, or start it over with `sqlload load TABLE --reload --restart`.",
          },
        );
      }
      const run = runPosition(log!.position.history, flags["to-run"], name);
      if (!run.windowEnd && !run.cursor && run.state === undefined) {
        throw new SqlloadError("SL503", `run ${run.runId} left ${name} with no position to continue from`, {
          table: name,
          hint: "Start the table over with `sqlload load TABLE --reload` instead.",
        });
      }
      if (strategy === "append" && !flags["allow-duplicates"]) {
        throw new SqlloadError(
          "SL504",
          `${name} appends: re-loading from run ${run.runId}'s position would insert those rows again`,
          { table: name },
        );
      }
      const record = rollbackRecord({
        run,
        runId: randomUUID(),
        table: name,
        at: new Date().toISOString(),
        logged: run.state !== undefined,
        dataMax: log!.dataMax,
        reason: flags.reason,
      });
      const source = await session.source(table.source);
      const target = await session.targetConnection();
      const prepared = await prepareTable({
        table,
        source,
        target,
        flags: {},
        now: new Date(),
        pendingRecords: [encodeRunLogRecord(record)],
      });
      this.out(`${flags.yes ? "rolled back" : "would roll back"} ${name} to run ${run.runId} (last commit ${run.at})`);
      this.out("the next run re-loads:");
      for (const line of reloadLines(prepared.plan, run.state)) this.out(`  ${line}`);
      if (!flags.yes) {
        this.out("nothing changed: pass --yes to do it");
        this.exit(ExitCode.tableFailed);
      }
      await appendRunLogRecord(target, table.config.target, record);
    } finally {
      await session.close();
    }
  }
}

/** The cursor range, the windows, and what the strategy does with them. */
function reloadLines(plan: TablePlan, state: Json | undefined): string[] {
  const lines: string[] = [];
  const cursor = cursorLine(plan);
  if (cursor) lines.push(cursor);
  if (state !== undefined) lines.push(`state ${stateText(state)} (ctx.state the table function starts from)`);
  lines.push(batchLine(plan));
  const column = plan.cursor?.column;
  switch (plan.strategy) {
    case "delete_insert":
      lines.push(
        column
          ? `delete_insert deletes the target rows whose ${column} lies in that range, then inserts the rows read: the range is replaced`
          : "delete_insert replaces what it reads",
      );
      break;
    case "merge":
      lines.push(
        `merge upserts the rows read on ${plan.primaryKey?.join(", ") ?? "the primary key"}: rows in that range are replaced, none duplicated`,
      );
      break;
    case "append":
      lines.push("append inserts the rows read again: they are duplicated (--allow-duplicates)");
      break;
    default:
      break;
  }
  return lines;
}
