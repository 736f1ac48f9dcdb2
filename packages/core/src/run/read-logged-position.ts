import type { TargetTableRef } from "../connector/table-ref.js";
import type { TargetConnection } from "../connector/target.js";
import { EarlierRecordsNeeded, RUN_LOG_TAIL } from "../state/history-tail.js";
import { type LoggedPosition, loggedPosition } from "../state/logged-state.js";
import type { RunLogRow } from "../state/run-log.js";

/**
 * A table's logged position for a load, and what `walks` finds in its history: from the newest
 * records of its run log when they decide both, else from the whole log (state/history-tail.ts).
 * `pending` are records taken as already appended (a rollback's preview); `early` is the newest
 * records' read, begun while the checks ran.
 */
export async function readLoggedPosition<T>(
  target: TargetConnection,
  ref: TargetTableRef,
  pending: readonly RunLogRow[],
  walks: (position: LoggedPosition) => T,
  /** The same first read, begun earlier (early-target-reads.ts). */
  early?: Promise<readonly RunLogRow[]> | undefined,
): Promise<{ readonly position: LoggedPosition; readonly found: T }> {
  const walked = (position: LoggedPosition) => ({ position, found: walks(position) });
  const newest = await (early ?? readNewestRecords(target, ref));
  // Fewer rows than asked for are the whole log, and so are more: a target may ignore `last` (target.ts).
  if (newest.length !== RUN_LOG_TAIL) return walked(loggedPosition([...newest, ...pending]));
  try {
    return walked(loggedPosition([...newest, ...pending], { tail: true }));
  } catch (error) {
    if (!(error instanceof EarlierRecordsNeeded)) throw error;
  }
  return walked(loggedPosition([...(await target.readRunLog(ref)), ...pending]));
}

/** The first read of a table's log for a load: its newest records, which decide most positions alone. */
export function readNewestRecords(target: TargetConnection, ref: TargetTableRef): Promise<readonly RunLogRow[]> {
  return target.readRunLog(ref, { last: RUN_LOG_TAIL });
}
