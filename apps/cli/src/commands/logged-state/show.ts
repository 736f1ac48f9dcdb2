import { Args } from "@oclif/core";
import { cursorText, historyLine, readTableLogs, stateText } from "../../logged-state.js";
import { SqlloadCommand } from "../../sqlload-command.js";

export default class LoggedStateShow extends SqlloadCommand {
  static override summary = "Show each table's logged state, the run that set it, and its history.";
  static override description =
    `Reads the run log (_sqlload_runs in the table's target schema): one record per commit, append-only. Unreadable records (corrupt, or written by a newer sqlload) are listed too.`;
  static override examples = ["<%= config.bin %> logged-state show", "<%= config.bin %> logged-state show shop__events"];
  static override strict = false;
  static override args = {
    tables: Args.string({ description: "Tables: shop__events, a source name, or a glob.", ignoreStdin: true }),
  };

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(LoggedStateShow);
    const { session } = await this.openProject(flags.project);
    try {
      const logs = await readTableLogs(session, await session.select(argv as string[]));
      for (const log of logs) {
        const { position } = log;
        const setBy = position.record
          ? ` (set by ${position.record.event} ${position.record.runId} at ${position.record.at})`
          : "";
        this.out(`${log.name}`);
        this.out(`  state ${stateText(position.state)}${setBy}`);
        if (log.cursorColumn)
          this.out(`  cursor ${log.cursorColumn}: logged ${cursorText(position.cursor)}, data ${cursorText(log.dataMax)}`);
        if (position.blocking) this.out(`  blocked: ${position.blocking.code} ${position.blocking.message}`);
        this.out(position.history.length ? "  history:" : "  history: none");
        for (const entry of position.history) this.out(`    ${historyLine(entry)}`);
      }
    } finally {
      await session.close();
    }
  }
}
