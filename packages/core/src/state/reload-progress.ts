import type { CursorValue } from "../cursor/cursor-value.js";
import { newestFirst } from "./history-tail.js";
import type { HistoryEntry } from "./logged-state.js";
import type { RunLogRecord } from "./run-log.js";

/** A resumable reload that has not been swapped in yet, from the table's run log. */
export interface ReloadInProgress {
  /** The run that started it. */
  readonly id: string;
  /** The last record of its build: its window end and the build's maximum then (none before the first window). */
  readonly last: RunLogRecord;
  /** The end of the last window the build committed; undefined before the first. */
  readonly windowEnd: CursorValue | undefined;
  /** The build table's maximum after that window. */
  readonly cursor: CursorValue | null;
}

/**
 * The reload a table is in the middle of, if any: the table's last load commit (corrections such
 * as a reconcile or reset do not count) belongs to a reload's build. A swap, or any ordinary load
 * commit after the build, ends it. An unreadable load commit hides whatever came before it.
 */
export function reloadInProgress(history: readonly HistoryEntry[]): ReloadInProgress | undefined {
  for (const entry of newestFirst(history)) {
    if ("error" in entry) return undefined;
    const record = entry.record;
    if (record.event !== "run") continue;
    const reload = record.reload;
    if (!reload || reload.phase === "swap") return undefined;
    return { id: reload.id, last: record, windowEnd: record.windowEnd ?? undefined, cursor: record.cursor ?? null };
  }
  return undefined;
}
