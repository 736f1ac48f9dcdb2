import type { TableResult } from "../events/run-event.js";
import type { ProjectSession, ProjectTable } from "./project-session.js";
import { pause } from "./rate-limiter.js";
import { type LoadOptions, type LoadResult, loadProject } from "./run-project.js";

export interface PassLoopOptions {
  /** Keep running passes until every table is caught up (SPEC §9); else run one pass. */
  readonly untilCaughtUp: boolean;
  /** The most passes to run (`--max-runs`). */
  readonly maxRuns: number;
  readonly signal: AbortSignal;
  /** `--pause`: how long to wait before each pass after the first; Ctrl-C during it ends the loop. */
  readonly pauseMs?: number | undefined;
  /** Told before a pause, with the number of the pass it precedes. */
  readonly onPause?: ((pass: number) => void) | undefined;
}

export interface PassLoopResult {
  /** The last pass's result. */
  readonly last: LoadResult;
  readonly passes: number;
  /** Rows committed over all passes. */
  readonly rows: number;
  readonly caughtUp: boolean;
  /** The loop stopped at `maxRuns` with every pass loaded but some table not caught up. */
  readonly stoppedAtMaxRuns: boolean;
}

/** Every table caught up: tables without an end or a per-run bound count as caught up. */
export function allCaughtUp(results: readonly TableResult[]): boolean {
  return results.every((r) => r.status === "loaded" && r.caughtUp !== false);
}

/**
 * Runs passes until every table is caught up, a pass does not load every table (failed,
 * skipped, interrupted: the loop ends on that pass), or `maxRuns` passes ran. Each pass is a full
 * run committing its slices before the next starts; no empty pass runs after catching up.
 */
export async function runPasses(
  runPass: (pass: number) => Promise<LoadResult>,
  options: PassLoopOptions,
): Promise<PassLoopResult> {
  const maxRuns = options.untilCaughtUp ? Math.max(1, options.maxRuns) : 1;
  let rows = 0;
  let previous: PassLoopResult | undefined;
  for (let pass = 1; ; pass++) {
    if (previous && options.pauseMs) {
      options.onPause?.(pass);
      await pause(options.pauseMs, options.signal, "--pause").catch(() => {});
      if (options.signal.aborted) return previous;
    }
    const last = await runPass(pass);
    rows += last.results.reduce((sum, r) => sum + r.rows, 0);
    const loaded = !options.signal.aborted && last.results.every((r) => r.status === "loaded");
    const caughtUp = allCaughtUp(last.results);
    const result = { last, passes: pass, rows, caughtUp, stoppedAtMaxRuns: loaded && !caughtUp && options.untilCaughtUp };
    if (!loaded || caughtUp || !options.untilCaughtUp || pass >= maxRuns) return result;
    previous = { ...result, stoppedAtMaxRuns: false };
  }
}

/**
 * `load [--until-caught-up]`: loads the tables in passes. `--reload` (and `--restart`) apply to the
 * first pass only, so later passes continue a resumable reload to its swap; `afterPass` sees each pass's result (the CLI writes run_results.json from it).
 */
export function loadUntilCaughtUp(
  session: ProjectSession,
  tables: readonly ProjectTable[],
  options: LoadOptions & Omit<PassLoopOptions, "signal"> & { readonly afterPass?: (result: LoadResult, pass: number) => void },
): Promise<PassLoopResult> {
  return runPasses(async (pass) => {
    const result = await loadProject(session, tables, {
      ...options,
      flags: { ...options.flags, reload: options.flags.reload && pass === 1, restart: options.flags.restart && pass === 1 },
    });
    options.afterPass?.(result, pass);
    return result;
  }, options);
}
