import { Args, Flags } from "@oclif/core";
import {
  allCaughtUp,
  checkTables,
  eventToJSON,
  formatCount,
  formatCursor,
  keepWholeRunsCode,
  type LoadResult,
  loadUntilCaughtUp,
  type PassLoopResult,
  parseDuration,
  type RunEvent,
  SqlloadError,
} from "@sqlload/core";
import { readFlags } from "../cursor-flags.js";
import { ExitCode, exitCodeForResults } from "../exit-codes.js";
import { formatSeconds } from "../render/format.js";
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

Resumable reloads (DuckDB and Postgres targets): --reload of a windowed table builds the new table in <table>__sqlload_reload window by window, bounded per run like any backfill, while the old table stays live; a killed or failed reload resumes from its last committed window, and a plain \`sqlload load\` continues it (the live table is not loaded incrementally meanwhile). Once caught up, the build is swapped in with the record ending the reload, in one transaction. --reload while one is in progress is refused (SL213): --reload --restart drops the build and starts over; --reload --until-caught-up drives it to the swap. Other targets, non-windowed tables and replace tables rebuild in one commit.

Every run writes .sqlload/run_results.json beside sqlload.toml with each table's rows, positions and caughtUp, so a scheduler can run again while any table says "caughtUp": false. --log-format json prints one JSON object per line instead of text (see docs/run-output.md).

Ctrl-C rolls back the window in flight, starts nothing more and exits 130; a second Ctrl-C stops at once.

Pacing: rate_limit on a source or table ({ rows_per_second = 1000, requests_per_second = 2 }; requests are those a TypeScript table announces with \`await ctx.pace()\`) is enforced within the run; a table that waits reports it (a "rate limited" hint, or a rate_limited JSON event). --pause 30s waits between --until-caught-up passes.

Scale-out: --queue URL runs the tables on \`sqlload worker\` processes (see \`sqlload worker --help\` and docs/scale-out.md) and reports here as a local load would; --detach prints the run id and returns at once.

Exit codes: 0 all loaded; 1 a table failed; 2 usage or config error; 3 --until-caught-up stopped at --max-runs before catching up; 75 a table was skipped for a retryable reason (another run holds its lock, the target refused a connection); 130 interrupted.`;
  static override examples = [
    "<%= config.bin %> load",
    "<%= config.bin %> load app__orders",
    "<%= config.bin %> load app --start-cursor 2026-10-01 --end-cursor 2026-10-08",
    "<%= config.bin %> load --reload shop__orders",
    "<%= config.bin %> load --reload --until-caught-up app__orders",
    "<%= config.bin %> load --reload --restart app__orders",
    "<%= config.bin %> load app__orders --max-windows 4 --until-caught-up",
    "<%= config.bin %> load --log-format json > run.jsonl",
    "<%= config.bin %> load app__orders --max-windows 4 --until-caught-up --pause 30s",
    "<%= config.bin %> load --queue postgresql://sqlload@queue-db/sqlload --until-caught-up",
    "<%= config.bin %> load --queue redis://127.0.0.1:6379 app --detach",
  ];
  static override strict = false;
  static override args = {
    tables: Args.string({ description: "Tables to load: app__orders, a source name, or a glob (app__*).", ignoreStdin: true }),
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
    pause: Flags.string({
      summary: 'With --until-caught-up: wait this long between passes ("30s", "5m"), to spare the source.',
      dependsOn: ["until-caught-up"],
    }),
    "max-runs": Flags.integer({ summary: "With --until-caught-up: the most passes to run.", default: 100, min: 1 }),
    "log-format": Flags.option({
      options: ["text", "json"] as const,
      default: "text",
      summary: "text, or json: one JSON object per line on stdout.",
    })(),
    queue: Flags.string({
      summary: "Run the tables on `sqlload worker`s through this queue (postgresql://… or redis://…) and report here.",
      helpValue: "URL",
      env: "SQLLOAD_QUEUE",
    }),
    detach: Flags.boolean({ summary: "With --queue: enqueue, print the run id and exit 0 at once.", dependsOn: ["queue"] }),
    retries: Flags.integer({
      summary: "With --queue: how often a table that failed for a retryable reason is tried again.",
      default: 2,
      min: 0,
    }),
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
        restart: flags.restart,
      };
      const progress = !json && (flags.progress ?? (process.stdout.isTTY === true && !process.env.NO_COLOR));
      const looping = flags["until-caught-up"];
      const started = Date.now();
      const emit = this.renderer(json, progress);
      const pauseMs = pauseBetweenPasses(flags.pause);
      let outcome: PassLoopResult;
      if (flags.queue) {
        // Config errors before anything is enqueued, as a local load finds them before reading.
        await checkTables(session, tables, flagsForPlan, { connect: true });
        // Imported here: the queue client (BullMQ) is a third of a local load's start-up.
        const { queuedLoad } = await import("../queue/queued-load.js");
        const queued = await queuedLoad({
          url: flags.queue,
          tables,
          config,
          flags: flagsForPlan,
          untilCaughtUp: looping,
          maxRuns: looping ? flags["max-runs"] : 1,
          retries: flags.retries,
          detach: flags.detach,
          emit: json ? (event) => event.type.startsWith("run_") && emit(event) : emit,
          forward: json ? (line) => this.out(line) : undefined,
          signal: controller.signal,
        });
        if (!queued.result) {
          this.out(queued.runId);
          return;
        }
        writeRunResults(config.dir, queued.result, looping ? queued.passes : undefined);
        const loaded = queued.result.results.every((r) => r.status === "loaded");
        const caughtUp = allCaughtUp(queued.result.results);
        outcome = {
          last: queued.result,
          passes: queued.passes,
          rows: queued.totalRows,
          caughtUp,
          stoppedAtMaxRuns: looping && loaded && !caughtUp,
        };
      } else {
        outcome = await loadUntilCaughtUp(session, tables, {
          flags: flagsForPlan,
          concurrency: flags.concurrency,
          failFast: flags["fail-fast"],
          emit,
          signal: controller.signal,
          chunkBytes: chunkBytes(),
          untilCaughtUp: looping,
          maxRuns: flags["max-runs"],
          pauseMs,
          onPause: (pass) => {
            if (!json) this.out(`pausing ${flags.pause} before pass ${pass} (--pause)`);
          },
          afterPass: (result, pass) => writeRunResults(config.dir, result, looping ? pass : undefined),
        });
      }
      const result = outcome.last;
      // A load that loaded a table ran what the next loads will: the compiled code it keeps at exit
      // replaces what a shorter command (or a load stopped by its checks) kept.
      if (result.results.some((r) => r.status === "loaded")) keepWholeRunsCode();
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

/** `--pause 30s` in milliseconds; a malformed duration is a usage error. */
function pauseBetweenPasses(text: string | undefined): number {
  if (text === undefined) return 0;
  const duration = parseDuration(text);
  if (!duration) {
    throw new SqlloadError("SL104", `--pause ${JSON.stringify(text)} is not a duration`, {
      hint: 'Write a whole number and a unit (s m h d w), combinable: "30s", "5m", "1h".',
    });
  }
  return Number(duration.micros / 1000n);
}
