import { Args, Flags } from "@oclif/core";
import { type Json, SqlloadError } from "@sqlload/core";
import { ExitCode } from "../../exit-codes.js";
import { appendCorrection, readTableLogs, stateText } from "../../logged-state.js";
import { SqlloadCommand } from "../../sqlload-command.js";

export default class LoggedStateReset extends SqlloadCommand {
  static override summary = "Set (--to) or forget (--clear) the position the next run starts from.";
  static override description =
    `Appends a reset record to each selected table's run log; nothing is deleted. A reset also starts a new position after a record sqlload cannot read. --to takes JSON (a string may be given bare). Without --yes, prints what it would do, changes nothing, and exits 1.`;
  static override examples = [
    "<%= config.bin %> logged-state reset shop__events --to '\"token-42\"' --yes",
    "<%= config.bin %> logged-state reset shop__events --to '{\"page\": 7}' --yes",
    "<%= config.bin %> logged-state reset shop__events --clear --yes",
  ];
  static override strict = false;
  static override args = {
    tables: Args.string({ description: "Tables: shop__events, a source name, or a glob.", required: true, ignoreStdin: true }),
  };
  static override flags = {
    to: Flags.string({ summary: "The new position, as JSON (or a bare string).", exactlyOne: ["to", "clear"] }),
    clear: Flags.boolean({ summary: "Forget the position: the next run starts as a first run.", exactlyOne: ["to", "clear"] }),
    yes: Flags.boolean({ summary: "Do it (without: only say what would be done)." }),
  };

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(LoggedStateReset);
    const state: Json | null = flags.clear ? null : parseState(flags.to as string);
    const { session } = await this.openProject(flags.project);
    try {
      const target = await session.targetConnection();
      for (const log of await readTableLogs(session, await session.select(argv as string[]))) {
        const what = `${log.name}: state ${stateText(log.position.state)} → ${stateText(state)}`;
        if (!flags.yes) {
          this.out(`would reset ${what}`);
          continue;
        }
        await appendCorrection(target, log, {
          event: "reset",
          state,
          cursor: log.dataMax,
          note: flags.clear ? "cleared (logged-state reset --clear)" : "set (logged-state reset --to)",
        });
        this.out(`reset ${what}`);
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

function parseState(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    if (text.trim() === "") throw new SqlloadError("SL502", "--to needs a value");
    return text;
  }
}
