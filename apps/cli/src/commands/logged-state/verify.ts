import { Args } from "@oclif/core";
import { ExitCode } from "../../exit-codes.js";
import { cursorText, disagrees, readTableLogs } from "../../logged-state.js";
import { SqlloadCommand } from "../../sqlload-command.js";

export default class LoggedStateVerify extends SqlloadCommand {
  static override summary = "Compare each table's logged cursor with its data.";
  static override description =
    "Exit code 0 when every selected table agrees (or has no cursor), 1 when any disagrees or has an unreadable record.";
  static override examples = ["<%= config.bin %> logged-state verify"];
  static override strict = false;
  static override args = {
    tables: Args.string({ description: "Tables: shop__events, a source name, or a glob.", ignoreStdin: true }),
  };

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(LoggedStateVerify);
    const { session } = await this.openProject(flags.project);
    let bad = 0;
    try {
      for (const log of await readTableLogs(session, await session.select(argv as string[]))) {
        if (log.position.blocking) {
          bad++;
          this.out(`blocked ${log.name}: ${log.position.blocking.message}`);
        } else if (disagrees(log)) {
          bad++;
          this.out(
            `differs ${log.name}: logged cursor ${cursorText(log.position.cursor)}, data ${cursorText(log.dataMax)} (\`sqlload logged-state reconcile --yes\` adopts the data's)`,
          );
        } else {
          this.out(`ok ${log.name}${log.cursorColumn ? `: cursor ${cursorText(log.dataMax)}` : ""}`);
        }
      }
    } finally {
      await session.close();
    }
    if (bad) this.exit(ExitCode.tableFailed);
  }
}
