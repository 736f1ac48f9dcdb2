import type { CommitModel } from "../connector/capabilities.js";
import type { CursorRange } from "../connector/source.js";
import type { WriteStrategy } from "../connector/target.js";
import { type CursorValue, compareCursor } from "../cursor/cursor-value.js";
import type { TablePlan } from "../plan/plan-table.js";
import { type WindowSpec, windowAt, windowIndexOf } from "../plan/windows.js";

/** Which of a table's windows a commit finished. */
export interface WindowRef {
  readonly index: number;
  readonly count: number;
}

/** One read of the source. */
export interface ReadPass {
  readonly range: CursorRange;
  /** What `delete_insert` replaces, when more than `range` (windows skipped for holding no source rows). */
  readonly deleteRange?: CursorRange | undefined;
  readonly includeNulls: boolean;
  readonly window?: WindowRef | undefined;
}

/**
 * How one table's load commits, read from its plan: the only place that interprets the plan's
 * commit mode. Either a fixed list of passes ending in one commit (commit points and checkpoints
 * may commit inside them), or windows walked one commit each with `nextWindow`.
 */
export interface CommitSchedule {
  /** A new table is built over every pass and swapped in at the one commit (`replace`, `--reload`). */
  readonly rebuild: boolean;
  /** What the commit units do with rows: `replace` for a rebuild, else the table's strategy. */
  readonly unitStrategy: WriteStrategy;
  /** A unit opened for a pass first deletes the range the pass reads (`delete_insert`). */
  readonly deletesRange: boolean;
  /** The read is in cursor order and commits at the source's commit points, about every `CHUNK_BYTES`. */
  readonly commitsAtCommitPoints: boolean;
  /** A checkpoint commits the rows before it; a rebuild keeps them for its one commit. */
  readonly commitsAtCheckpoints: boolean;
  /** When a staged target makes commits visible; `none` on targets whose commits are visible at once. */
  readonly publish: "none" | "each-commit" | "end-of-run";
  /** The table has an end or a per-run bound, so its result says whether it caught up. */
  readonly reportsCaughtUp: boolean;
  readonly steps:
    | { readonly kind: "passes"; readonly passes: readonly ReadPass[] }
    | { readonly kind: "windows"; readonly windows: WindowSpec; readonly perRun: number };
}

export function commitSchedule(plan: TablePlan, commitModel: CommitModel): CommitSchedule {
  const rebuild = plan.commit === "swap";
  const windows = plan.windows;
  let steps: CommitSchedule["steps"];
  if (windows && rebuild) {
    // Every window into the one unit: a windowed table being rebuilt.
    const passes = Array.from({ length: windows.count }, (_, k) => ({
      range: windowAt(windows, k),
      includeNulls: false,
      window: { index: k, count: windows.count },
    }));
    steps = { kind: "passes", passes };
  } else if (windows) {
    steps = { kind: "windows", windows, perRun: windows.perRun ?? Number.POSITIVE_INFINITY };
  } else {
    steps = { kind: "passes", passes: [{ range: plan.range, includeNulls: plan.includeNulls }] };
  }
  return {
    rebuild,
    unitStrategy: rebuild ? "replace" : plan.strategy,
    deletesRange: !rebuild && plan.strategy === "delete_insert",
    commitsAtCommitPoints: plan.commit === "chunked",
    commitsAtCheckpoints: !rebuild,
    publish: commitModel === "staged" ? plan.publish : "none",
    reportsCaughtUp:
      plan.end?.reason === "cursor_end" ||
      plan.end?.reason === "--end-cursor" ||
      plan.windows?.perRun !== undefined ||
      plan.reloadBuild !== undefined,
    steps,
  };
}

/** How far a windowed load has got: the next window to consider and how many this run has read. */
export interface WindowWalk {
  readonly next: number;
  readonly read: number;
}

export const startOfWalk: WindowWalk = { next: 0, read: 0 };

/**
 * What a windowed load does next:
 * - `read` a window (after skipping those the source has no rows in) and commit it, then go on from `after`;
 * - `empty-to-end`: no rows are left before the end, so one empty commit moves the position there;
 * - `stop`: every window is done (caught up) or the run's bound is reached (not caught up).
 */
export type WindowStep =
  | { readonly kind: "read"; readonly pass: ReadPass; readonly window: CursorRange; readonly after: WindowWalk }
  | { readonly kind: "empty-to-end"; readonly range: CursorRange; readonly window: WindowRef }
  | { readonly kind: "stop"; readonly caughtUp: boolean };

/** Where to ask the source for its first row at or after, before deciding the next step; undefined when done. */
export function lookupFrom(windows: WindowSpec, walk: WindowWalk): CursorValue | undefined {
  return walk.next < windows.count ? windowAt(windows, walk.next).from : undefined;
}

/**
 * The next step of a windowed load, given the source's first cursor value at or after
 * `lookupFrom` (null: none; undefined: the source cannot say, so no window is skipped).
 */
export function nextWindow(
  windows: WindowSpec,
  perRun: number,
  walk: WindowWalk,
  firstRow: CursorValue | null | undefined,
): WindowStep {
  const k = walk.next;
  if (k >= windows.count) return { kind: "stop", caughtUp: true };
  const from = windowAt(windows, k).from;
  if (firstRow === null || (firstRow && compareCursor(firstRow, windows.end) >= 0)) {
    // Nothing left before the end: an empty window still moves the position, here to the end.
    return { kind: "empty-to-end", range: { from, to: windows.end }, window: { index: windows.count - 1, count: windows.count } };
  }
  if (walk.read >= perRun) return { kind: "stop", caughtUp: false };
  const skipTo = firstRow ? Math.max(k, windowIndexOf(windows, firstRow)) : k;
  const window = windowAt(windows, skipTo);
  // Under delete_insert the skipped windows are replaced too: they hold no source rows.
  const deleteRange = skipTo > k ? { from, to: window.to } : window;
  return {
    kind: "read",
    pass: { range: window, deleteRange, includeNulls: false, window: { index: skipTo, count: windows.count } },
    window,
    after: { next: skipTo + 1, read: walk.read + 1 },
  };
}
