import type { HistoryEntry } from "./logged-state.js";

/**
 * How many of a table's newest run-log records a load reads first. The log gains a record with
 * every commit, no-op runs included, and is never trimmed, so reading all of it would make every
 * run slower than the one before (10,000 records cost a quarter of a second). What a load needs
 * is almost always in the last few records: each rule that reads the history walks back from its
 * end and stops at the first record that decides it.
 */
export const RUN_LOG_TAIL = 100;

/** Thrown by a walk that reached the oldest record of a tail undecided: the load reads the whole log and starts again. */
export class EarlierRecordsNeeded extends Error {
  constructor() {
    super("the run log's newest records do not decide this: read it whole");
  }
}

// Histories decoded from a tail. A mark rather than a field, so the rules keep taking the plain
// list of entries that `sqlload logged-state` and `rollback`, which read the whole log, pass too.
const tails = new WeakSet<readonly HistoryEntry[]>();

export function markTail(history: readonly HistoryEntry[]): void {
  tails.add(history);
}

export function isTail(history: readonly HistoryEntry[]): boolean {
  return tails.has(history);
}

/**
 * The entries from the newest back. A walk that goes past the oldest entry of a tail throws
 * EarlierRecordsNeeded instead of ending: what it would decide there depends on records not read.
 */
export function* newestFirst(history: readonly HistoryEntry[]): Generator<HistoryEntry, void, undefined> {
  for (let i = history.length - 1; i >= 0; i--) yield history[i]!;
  if (tails.has(history)) throw new EarlierRecordsNeeded();
}
