import { Args, Flags } from "@oclif/core";
import { planProject, planToJSON, renderPlanTree } from "@sqlload/core";
import { readFlags } from "../cursor-flags.js";
import { ExitCode } from "../exit-codes.js";
import { resultLine } from "../render/line-renderer.js";
import { nothingToLoad } from "../render/nothing-to-load.js";
import { SqlloadCommand } from "../sqlload-command.js";

export default class Plan extends SqlloadCommand {
  static override summary = "Show what a load would do, table by table, without moving data.";
  static override description =
    `For each selected table prints a tree: the target table, the write strategy, how it commits (the batch line), notes, and the cursor line saying where the read starts and why:

  raw.app__orders ← app.public.orders
  ├── strategy delete_insert
  ├── batch 10 windows of 7days, one commit each
  └── cursor updated_at from 2026-10-12 16:00:00.000000+00 (destination maximum)

It reads the target's maximum and the source's metadata, nothing else.

Notes also say what the load will change in an existing target table ("schema: adds column …", "schema: widens n from int32 to int64", a dropped source column kept; a change that would lose data fails the table with SL312, on_schema_change = "fail" any change with SL313), warn when a text cursor's keys rise only in the source's collation (linguistic order), and the cursor line shows a pending \`sqlload rollback\` with its reason.

A resumable reload (\`load --reload\` of a windowed table on DuckDB or Postgres) shows its progress on the table's line, "raw.app__orders ← app.public.orders (reload in progress, window 3 of 6, old table live until the swap)", and a note that a plain load continues it (the live table is not loaded incrementally until the swap); --json carries it as reloadBuild. plan --reload while one is in progress fails with SL213 (add --restart to plan starting over).

TABLES selects tables: a target name without schema (app__orders), a source name (app: all its tables), or a glob (app__*). None: every table.`;
  static override examples = [
    "<%= config.bin %> plan",
    "<%= config.bin %> plan app__orders --start-cursor 2026-10-01 --end-cursor 2026-10-08",
    "<%= config.bin %> plan shop --json",
  ];
  static override strict = false;
  static override args = {
    tables: Args.string({ description: "Tables to plan: app__orders, a source name, or a glob (app__*).", ignoreStdin: true }),
  };
  static override flags = {
    ...readFlags,
    json: Flags.boolean({ summary: "Print the plan as JSON." }),
  };

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(Plan);
    const { session, config } = await this.openProject(flags.project);
    try {
      const tables = await session.select(argv as string[]);
      if (tables.length === 0) {
        if (flags.json) this.out(JSON.stringify({ tables: [], failed: [], note: nothingToLoad(config) }, null, 2));
        else this.out(nothingToLoad(config));
        return;
      }
      const planned = await planProject(
        session,
        tables,
        { startCursor: flags["start-cursor"], endCursor: flags["end-cursor"], reload: flags.reload, restart: flags.restart },
        new Date(),
      );
      const { prepared, failed } = planned;
      if (flags.json) {
        const out = {
          tables: prepared.map((p) => planToJSON(p.plan)),
          failed: failed.map((f) => ({ table: f.table, error: f.error?.toJSON() })),
        };
        this.out(JSON.stringify(out, null, 2));
      } else {
        this.out(prepared.map((p) => renderPlanTree(p.plan)).join("\n\n"));
        for (const f of failed) {
          this.err(resultLine(f));
          if (f.error?.hint) this.err(`  hint: ${f.error.hint}`);
        }
      }
      if (failed.length) this.exit(ExitCode.tableFailed);
    } finally {
      await session.close();
    }
  }
}
