import { Args, Flags } from "@oclif/core";
import { loadProject, planProject, type RunEvent } from "@sqlload/core";
import { checkOneCursorKind, readFlags } from "../cursor-flags.js";
import { exitCodeForResults } from "../exit-codes.js";
import { formatCount, formatSeconds } from "../render/format.js";
import { lineRenderer } from "../render/line-renderer.js";
import { SqlloadCommand } from "../sqlload-command.js";

export default class Load extends SqlloadCommand {
  static override summary = "Load the selected tables into the target, incrementally.";
  static override description =
    `Runs the plan (see \`sqlload plan\`): each table reads from where its data says it stopped and commits as its batch line says, so a failure keeps what committed and the next run carries on. Each table ends with a line such as

  loaded raw.app__orders 1,001 rows 0.1s

Tables load independently: a failing table does not stop the others.

Exit codes: 0 all loaded; 1 a table failed; 2 usage or config error; 3 --until-caught-up stopped at --max-runs; 75 a table was skipped for a retryable reason (another run holds its lock, the target refused a connection); 130 interrupted.`;
  static override examples = [
    "<%= config.bin %> load",
    "<%= config.bin %> load app__orders",
    "<%= config.bin %> load app --start-cursor 2026-10-01 --end-cursor 2026-10-08",
    "<%= config.bin %> load --reload shop__orders",
  ];
  static override strict = false;
  static override args = {
    tables: Args.string({ description: "Tables to load: app__orders, a source name, or a glob (app__*)." }),
  };
  static override flags = {
    ...readFlags,
    concurrency: Flags.integer({ summary: "Tables loaded at once.", default: 1, min: 1 }),
    "fail-fast": Flags.boolean({ summary: "Start no more tables after one fails." }),
  };

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(Load);
    const { session } = await this.openProject(flags.project);
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
      const tables = await session.select(argv as string[]);
      const planFlags = { startCursor: flags["start-cursor"], endCursor: flags["end-cursor"], reload: flags.reload };
      if (planFlags.startCursor !== undefined || planFlags.endCursor !== undefined) {
        // One cursor kind per run, checked before anything is read.
        checkOneCursorKind((await planProject(session, tables, planFlags, new Date())).prepared, flags);
      }
      const render = lineRenderer(
        (line) => this.out(line),
        (line) => this.err(line),
      );
      const result = await loadProject(session, tables, {
        flags: planFlags,
        concurrency: flags.concurrency,
        failFast: flags["fail-fast"],
        emit: (event: RunEvent) => render(event),
        signal: controller.signal,
      });
      const loaded = result.results.filter((r) => r.status === "loaded");
      const rows = loaded.reduce((sum, r) => sum + r.rows, 0);
      const failed = result.results.length - loaded.length;
      this.out(
        `done: ${loaded.length} of ${result.results.length} table${result.results.length === 1 ? "" : "s"} loaded, ${formatCount(rows)} rows in ${formatSeconds(result.seconds)}${failed ? `, ${failed} not loaded` : ""}`,
      );
      const code = exitCodeForResults(result.results, controller.signal.aborted);
      if (code !== 0) this.exit(code);
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      await session.close();
    }
  }
}
