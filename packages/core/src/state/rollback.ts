import type { CursorKind } from "../cursor/cursor-kind.js";
import { type CursorValue, compareCursor } from "../cursor/cursor-value.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import { newestFirst } from "./history-tail.js";
import type { HistoryEntry } from "./logged-state.js";
import type { RunLogRecord } from "./run-log.js";

/**
 * A rollback the next run still follows: it continues from `from` (aligned to `windowEnd` when
 * windowed) as long as the target's maximum is still `dataMax`; any other maximum means the table
 * was changed by hand, and the data wins.
 */
export interface PendingRollback {
  /** The run whose position the next run continues from. */
  readonly runId: string;
  /** Why, as given to `sqlload rollback --reason` (or a default naming the run). */
  readonly reason: string;
  readonly from: CursorValue;
  /** Set for a windowed table: windows stay aligned to this end. */
  readonly windowEnd?: CursorValue | undefined;
  /** The target's maximum when the rollback (or the last window re-loaded since) was recorded. */
  readonly dataMax: CursorValue | null;
}

/**
 * The rollback a table's next run follows, if any. A windowed re-load after a rollback takes as
 * many runs as its windows need: each window it commits moves the pending position to that window's
 * end, until it reaches the maximum the data had (from there the ordinary window position applies).
 */
export function pendingRollback(history: readonly HistoryEntry[], kind: CursorKind): PendingRollback | undefined {
  let latestWindow: RunLogRecord | undefined;
  for (const entry of newestFirst(history)) {
    if ("error" in entry) return undefined;
    const record = entry.record;
    // A reload, built or swapped in, starts the table over: an earlier rollback no longer applies.
    if (record.reload) return undefined;
    if (record.event === "run") {
      // Only windows re-loaded since the rollback continue it; any other commit ends it.
      if (!record.windowEnd) return undefined;
      if (!latestWindow) {
        latestWindow = record;
        // A re-load that reached the old maximum ended whatever rollback came before it: decided
        // here, which keeps a windowed table's walk from going over its whole history.
        const reached = record.cursor && compareCursor(record.windowEnd, record.cursor) >= 0;
        if (record.windowEnd.kind !== kind || reached) return undefined;
      }
      continue;
    }
    if (record.event !== "rollback" || record.rollbackTo === undefined) return undefined;
    const reason = record.note ?? `rollback to run ${record.rollbackTo}`;
    if (latestWindow) {
      const end = latestWindow.windowEnd!;
      return { runId: record.rollbackTo, reason, from: end, windowEnd: end, dataMax: latestWindow.cursor ?? null };
    }
    const windowEnd = record.windowEnd?.kind === kind ? record.windowEnd : undefined;
    const from = windowEnd ?? (record.resumeFrom?.kind === kind ? record.resumeFrom : undefined);
    if (!from) return undefined;
    return { runId: record.rollbackTo, reason, from, windowEnd, dataMax: record.cursor ?? null };
  }
  return undefined;
}

/** Where a run left a table: the last record it committed. */
export function runPosition(history: readonly HistoryEntry[], runId: string, table: string): RunLogRecord {
  let last: RunLogRecord | undefined;
  for (const entry of history) {
    if (!("error" in entry) && entry.record.runId === runId) last = entry.record;
  }
  if (!last) {
    throw new SqlloadError("SL503", `table ${table} has no run ${runId} in its run log`, {
      table,
      hint: `List the runs with \`sqlload runs ${table.split(".").pop()}\` and pass one of their ids.`,
    });
  }
  if (last.event !== "run") {
    throw new SqlloadError("SL503", `${runId} is a ${last.event} record of ${table}, not a run that loaded data`, {
      table,
      hint: "Pass the id of a run (status `committed` in `sqlload runs`).",
    });
  }
  return last;
}

/**
 * The record `sqlload rollback` appends: the position `run` left (its window end, its state, its
 * data cursor), and the target's maximum now, so that a table changed by hand afterwards is followed.
 */
export function rollbackRecord(args: {
  readonly run: RunLogRecord;
  readonly runId: string;
  readonly table: string;
  readonly at: string;
  readonly logged: boolean;
  readonly dataMax: CursorValue | null;
  readonly reason?: string | undefined;
}): RunLogRecord {
  const { run } = args;
  return {
    runId: args.runId,
    table: args.table,
    at: args.at,
    event: "rollback",
    ...(args.logged ? { state: run.state ?? null } : {}),
    cursor: args.dataMax,
    windowEnd: run.windowEnd ?? null,
    rows: 0,
    note: args.reason ?? `rollback to run ${run.runId}`,
    rollbackTo: run.runId,
    resumeFrom: run.cursor ?? null,
  };
}
