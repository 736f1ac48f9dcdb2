import { Args, Flags } from "@oclif/core";
import { ExitCode } from "../../exit-codes.js";
import { appendCorrection, cursorText, disagrees, readTableLogs } from "../../logged-state.js";
import { SqlloadCommand } from "../../sqlload-command.js";

export default class LoggedStateReconcile extends SqlloadCommand {
  static override summary = "Adopt the data's position where a table's log and data disagree.";
  static override description =
    "Appends a reconcile record (the data's cursor, logged state dropped) for each selected table whose logged cursor differs from its data. Without --yes, prints what it would do, changes nothing, and exits 1.";
  static override examples = [
    "<%= config.bin %> logged-state reconcile",
    "<%= config.bin %> logged-state reconcile shop__events --yes",
  ];
  static override strict = false;
  static override args = {
    tables: Args.string({ description: "Tables: shop__events, a source name, or a glob.", ignoreStdin: true }),
  };
  static override flags = { yes: Flags.boolean({ summary: "Do it (without: only say what would be done)." }) };

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(LoggedStateReconcile);
    const { session } = await this.openProject(flags.project);
    try {
      const logs = (await readTableLogs(session, await session.select(argv as string[]))).filter(disagrees);
      if (logs.length === 0) {
        this.out("nothing to reconcile: every selected table's log agrees with its data");
        return;
      }
      const target = await session.targetConnection();
      for (const log of logs) {
        const what = `${log.name}: logged cursor ${cursorText(log.position.cursor)} → data ${cursorText(log.dataMax)}, logged state dropped`;
        if (!flags.yes) {
          this.out(`would reconcile ${what}`);
          continue;
        }
        await appendCorrection(target, log, {
          event: "reconcile",
          state: null,
          cursor: log.dataMax,
          note: "adopted the data's position (logged-state reconcile)",
        });
        this.out(`reconciled ${what}`);
      }
      if (!flags.yes) {
        this.out("nothing changed: pass --yes to do it");
        this.exit(ExitCode.tableFailed);
      }
    } finally {
      await session.close();
    }
  }
}
