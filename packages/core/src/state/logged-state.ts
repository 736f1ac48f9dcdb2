import { type CursorValue, cursorEquals } from "../cursor/cursor-value.js";
import { isSqlloadError, type SqlloadError } from "../errors/sqlload-error.js";
import { EarlierRecordsNeeded, markTail, newestFirst } from "./history-tail.js";
import type { Json } from "./json.js";
import { decodeRunLogRow, type RunLogRecord, type RunLogRow } from "./run-log.js";

/** One entry of a table's history: a record, or a row that could not be read. */
export type HistoryEntry =
  | { readonly record: RunLogRecord; readonly index: number }
  | { readonly error: SqlloadError; readonly row: RunLogRow; readonly index: number };

/** Where a table's run log leaves it. */
export interface LoggedPosition {
  /** The position the next run starts from; undefined when there is none (first run, cleared). */
  readonly state: Json | undefined;
  /** The data's cursor logged with it. */
  readonly cursor: CursorValue | null;
  /** The record that set it. */
  readonly record: RunLogRecord | undefined;
  /** An unreadable record after the last reset: it blocks the table until a reset. */
  readonly blocking: SqlloadError | undefined;
  readonly history: readonly HistoryEntry[];
}

/**
 * Whether a logged table's run log and its data disagree (SPEC §11): only a table with a cursor
 * column and a record can; then the logged cursor must equal the data's maximum, else the data
 * wins. `load` reconciles on it; `logged-state verify` reports it.
 */
export function logDisagreesWithData(position: LoggedPosition, dataMax: CursorValue | null, hasCursor: boolean): boolean {
  return hasCursor && position.record !== undefined && !cursorEquals(position.cursor, dataMax);
}

/**
 * Decodes a table's run log and finds its current position. Never throws on the whole log:
 * unreadable rows are entries. With `tail`, `rows` are only the log's newest records (see
 * history-tail.ts): it throws EarlierRecordsNeeded for an unreadable one, so that its message
 * numbers it in the whole log. Whether an earlier one blocks the table is `walkToPositionStart`'s
 * to find out.
 */
export function loggedPosition(rows: readonly RunLogRow[], options?: { readonly tail?: boolean }): LoggedPosition {
  const tail = options?.tail === true;
  const history: HistoryEntry[] = rows.map((row, index) => {
    try {
      return { record: decodeRunLogRow(row, index), index };
    } catch (error) {
      if (!isSqlloadError(error)) throw error;
      if (tail) throw new EarlierRecordsNeeded();
      return { error, row, index };
    }
  });
  if (tail) markTail(history);
  let record: RunLogRecord | undefined;
  let blocking: SqlloadError | undefined;
  for (const entry of history) {
    if ("error" in entry) {
      blocking ??= entry.error;
      continue;
    }
    // A reset (or a rollback, which sets the position too) starts a new position after whatever came before it, readable or not.
    if (entry.record.event === "reset" || entry.record.event === "rollback") blocking = undefined;
    record = entry.record;
  }
  const state = record?.state;
  return { state: state === null ? undefined : state, cursor: record?.cursor ?? null, record, blocking, history };
}

/**
 * Walks back past every record `blocking` depends on: to the last reset or rollback (an unreadable
 * record anywhere after it blocks the table, even behind load commits: `--reload` commits without
 * looking), or to a record marked `unblocked`, whose run found nothing blocking before it. On a
 * tail with none of them, throws EarlierRecordsNeeded.
 */
export function walkToPositionStart(history: readonly HistoryEntry[]): void {
  for (const entry of newestFirst(history)) {
    if (!("record" in entry)) continue;
    const { event, unblocked } = entry.record;
    if (event === "reset" || event === "rollback" || unblocked) return;
  }
}
