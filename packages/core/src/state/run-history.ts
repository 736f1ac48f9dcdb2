import type { CursorValue } from "../cursor/cursor-value.js";
import type { Json } from "./json.js";
import type { HistoryEntry } from "./logged-state.js";
import type { RunLogEvent } from "./run-log.js";

/** Where a table stood after a record: its data cursor, last window end and logged state. */
export interface RunPositionFacts {
  readonly cursor: CursorValue | null;
  readonly windowEnd: CursorValue | null;
  /** undefined when the table keeps no logged state. */
  readonly state: Json | undefined;
}

/** One run of one table, from its run-log records (a correction counts as a run of its own). */
export interface RunSummary {
  readonly runId: string;
  readonly event: RunLogEvent;
  /** The first and last record's time (ISO 8601 UTC). */
  readonly startedAt: string;
  readonly endedAt: string;
  readonly rows: number;
  readonly commits: number;
  /** Commits that finished a window. */
  readonly windows: number;
  readonly before: RunPositionFacts | null;
  readonly after: RunPositionFacts;
  readonly notes: readonly string[];
  /** A rollback: the run it continues from. */
  readonly rollbackTo?: string | undefined;
  /** Records of this run that could not be read (SL500). */
  readonly unreadable: number;
  /** A run of a resumable reload: which one, and whether this run swapped its build in. */
  readonly reload?: { readonly id: string; readonly swapped: boolean } | undefined;
}

/**
 * Groups a table's run log into runs, newest first. A run's records are consecutive in the log
 * (a table is locked while it loads), so a run id seen again later starts a new entry.
 */
export function runHistory(history: readonly HistoryEntry[]): RunSummary[] {
  const runs: RunSummary[] = [];
  let current: ({ -readonly [K in keyof RunSummary]: RunSummary[K] } & { notes: string[] }) | undefined;
  let previous: RunPositionFacts | null = null;
  for (const entry of history) {
    if ("error" in entry) {
      if (current && current.runId === entry.row.runId) current.unreadable++;
      else {
        if (current) runs.push(current);
        current = {
          runId: entry.row.runId,
          event: "run",
          startedAt: entry.row.at,
          endedAt: entry.row.at,
          rows: 0,
          commits: 0,
          windows: 0,
          before: previous,
          after: previous ?? { cursor: null, windowEnd: null, state: undefined },
          notes: [],
          unreadable: 1,
        };
      }
      continue;
    }
    const r = entry.record;
    const after: RunPositionFacts = { cursor: r.cursor ?? null, windowEnd: r.windowEnd ?? null, state: r.state };
    if (!current || current.runId !== r.runId || current.event !== r.event) {
      if (current) runs.push(current);
      current = {
        runId: r.runId,
        event: r.event,
        startedAt: r.at,
        endedAt: r.at,
        rows: 0,
        commits: 0,
        windows: 0,
        before: previous,
        after,
        notes: [],
        rollbackTo: r.rollbackTo,
        unreadable: 0,
      };
    }
    current.endedAt = r.at;
    current.rows += r.rows;
    current.commits++;
    if (r.windowEnd && r.event === "run") current.windows++;
    current.after = after;
    if (r.note) current.notes.push(r.note);
    if (r.reload) current.reload = { id: r.reload.id, swapped: current.reload?.swapped === true || r.reload.phase === "swap" };
    previous = after;
  }
  if (current) runs.push(current);
  return runs.reverse();
}
