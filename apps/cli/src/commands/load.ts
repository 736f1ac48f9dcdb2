import { Args, Flags } from "@oclif/core";
import { eventToJSON, formatCursor, type LoadResult, loadUntilCaughtUp, type PassLoopResult, type RunEvent } from "@sqlload/core";
import { readFlags } from "../cursor-flags.js";
import { ExitCode, exitCodeForResults } from "../exit-codes.js";
import { formatCount, formatSeconds } from "../render/format.js";
import { committedLine, lineRenderer } from "../render/line-renderer.js";
import { nothingToLoad } from "../render/nothing-to-load.js";
import { peakMemory } from "../render/peak-memory.js";
import { ProgressRenderer } from "../render/progress-renderer.js";
import { writeRunResults } from "../run-results-file.js";
import { SqlloadCommand } from "../sqlload-command.js";

export default class Load extends SqlloadCommand {
  static override summary = "Load the selected tables into the target, incrementally.";
  static override description =
    `Runs the plan (see \`sqlload plan\`): each table reads from where its data says it stopped and commits as its batch line says, so a failure keeps what committed and the next run carries on. Each table ends with a line such as

  loaded raw.app__orders 1,001 rows 0.1s

Tables load independently (--concurrency N): a failing table does not stop the others.

Bounded backfills: with batch_size and max_windows_per_run (or --max-windows), each run commits at most that many windows per table. --until-caught-up runs passes until every selected table is caught up (at most --max-runs).

Every run writes .sqlload/run_results.json beside sqlload.toml with each table's rows, positions and caughtUp, so a scheduler can run again while any table says "caughtUp": false. --log-format json prints one JSON object per line instead of text (see docs/run-output.md).

Ctrl-C rolls back the window in flight, starts nothing more and exits 130; a second Ctrl-C stops at once.

Exit codes: 0 all loaded; 1 a table failed; 2 usage or config error; 3 --until-caught-up stopped at --max-runs before catching up; 75 a table was skipped for a retryable reason (another run holds its lock, the target refused a connection); 130 interrupted.`;
  static override examples = [
    "<%= config.bin %> load",
    "<%= config.bin %> load app__orders",
    "<%= config.bin %> load app --start-cursor 2026-10-01 --end-cursor 2026-10-08",
    "<%= config.bin %> load --reload shop__orders",
    "<%= config.bin %> load app__orders --max-windows 4 --until-caught-up",
    "<%= config.bin %> load --log-format json > run.jsonl",
  ];
  static override strict = false;
  static override args = {
    tables: Args.string({ description: "Tables to load: app__orders, a source name, or a glob (app__*)." }),
  };
  static override flags = {
    ...readFlags,
    concurrency: Flags.integer({ summary: "Tables loaded at once.", default: 1, min: 1 }),
    "fail-fast": Flags.boolean({ summary: "Start no more tables after one fails." }),
    "max-windows": Flags.integer({
      summary: "Commit at most N windows per table this run (overrides max_windows_per_run).",
      min: 1,
    }),
    "until-caught-up": Flags.boolean({ summary: "Run passes until every selected table is caught up." }),
    "max-runs": Flags.integer({ summary: "With --until-caught-up: the most passes to run.", default: 100, min: 1 }),
    "log-format": Flags.option({
      options: ["text", "json"] as const,
      default: "text",
      summary: "text, or json: one JSON object per line on stdout.",
    })(),
    progress: Flags.boolean({
      summary: "Live progress on a terminal (default when stdout is a terminal and NO_COLOR is unset).",
      allowNo: true,
    }),
  };

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(Load);
    const { session, config } = await this.openProject(flags.project);
    const controller = new AbortController();
    let interrupts = 0;
    const onSignal = () => {
      interrupts++;
      if (interrupts > 1) process.exit(ExitCode.interrupted);
      if (flags["log-format"] === "text")
        this.err("interrupted: rolling back the window in flight (Ctrl-C again to stop at once)");
      controller.abort();
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    try {
      const tables = await session.select(argv as string[]);
      const json = flags["log-format"] === "json";
      if (tables.length === 0) {
        if (!json) this.out(nothingToLoad(config));
        return;
      }
      const flagsForPlan = {
        startCursor: flags["start-cursor"],
        endCursor: flags["end-cursor"],
        maxWindows: flags["max-windows"],
        reload: flags.reload,
      };
      const progress = !json && (flags.progress ?? (process.stdout.isTTY === true && !process.env.NO_COLOR));
      const looping = flags["until-caught-up"];
      const started = Date.now();
      const outcome = await loadUntilCaughtUp(session, tables, {
        flags: flagsForPlan,
        concurrency: flags.concurrency,
        failFast: flags["fail-fast"],
        emit: this.renderer(json, progress),
        signal: controller.signal,
        chunkBytes: chunkBytes(),
        untilCaughtUp: looping,
        maxRuns: flags["max-runs"],
        afterPass: (result, pass) => writeRunResults(config.dir, result, looping ? pass : undefined),
      });
      const result = outcome.last;
      const code = exitCodeForResults(result.results, controller.signal.aborted);
      if (!json) this.summary(result, outcome, (Date.now() - started) / 1000, looping);
      if (code !== ExitCode.ok) this.exit(code);
      if (outcome.stoppedAtMaxRuns) {
        if (!json) {
          const pass = outcome.passes;
          this.err(`not caught up after ${pass} pass${pass === 1 ? "" : "es"} (--max-runs ${flags["max-runs"]}):`);
          for (const r of result.results.filter((r) => r.caughtUp === false)) {
            this.err(`  ${r.table} at ${r.positionAfter ? formatCursor(r.positionAfter) : "its start"}`);
          }
        }
        this.exit(ExitCode.notCaughtUp);
      }
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      await session.close();
    }
  }

  private renderer(json: boolean, progress: boolean): (event: RunEvent) => void {
    if (json) {
      return (event) => {
        const line = eventToJSON(event);
        if (line) this.out(JSON.stringify(line));
      };
    }
    if (progress) return new ProgressRenderer((text) => process.stdout.write(text)).onEvent;
    return lineRenderer(
      (line) => this.out(line),
      (line) => this.err(line),
    );
  }

  private summary(result: LoadResult, outcome: PassLoopResult, seconds: number, looping: boolean): void {
    const loaded = result.results.filter((r) => r.status === "loaded");
    const notLoaded = result.results.length - loaded.length;
    const tables = `${loaded.length} of ${result.results.length} table${result.results.length === 1 ? "" : "s"} loaded`;
    const rows = looping ? outcome.rows : result.results.reduce((sum, r) => sum + r.rows, 0);
    const passes = outcome.passes;
    const passText = looping ? ` in ${passes} pass${passes === 1 ? "" : "es"}` : "";
    const caught = looping && outcome.caughtUp ? ", caught up" : "";
    // A table that failed or was interrupted keeps what it committed: say so, not just "not loaded".
    for (const r of result.results) if (r.status !== "loaded" && r.rows > 0) this.out(committedLine(r));
    this.out(
      `done: ${tables}, ${formatCount(rows)} rows${passText} in ${formatSeconds(seconds)}${notLoaded ? `, ${notLoaded} not loaded` : ""}${caught}, peak memory ${peakMemory()}`,
    );
  }
}

/**
 * `SQLLOAD_CHUNK_BYTES`: how much an ordered read (a Postgres table whose cursor leads an index)
 * moves between commits; default about 1 GB.
 */
function chunkBytes(): number | undefined {
  const value = Number(process.env.SQLLOAD_CHUNK_BYTES);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}
