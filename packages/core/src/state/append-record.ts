import type { TargetTableRef } from "../connector/table-ref.js";
import type { TargetConnection } from "../connector/target.js";
import { encodeRunLogRecord, type RunLogRecord } from "./run-log.js";

/**
 * Appends one run-log record on its own (a reconcile or a reset): a unit holding only the record,
 * committed. Nothing else in the table changes; a staged target makes a unit that holds only
 * run-log records visible at its commit (publishing here would also release other staged units).
 */
export async function appendRunLogRecord(target: TargetConnection, ref: TargetTableRef, record: RunLogRecord): Promise<void> {
  const unit = await target.begin(ref, { strategy: "append", columns: [] });
  try {
    await unit.appendRunLog(encodeRunLogRecord(record));
    await unit.commit();
  } catch (error) {
    await unit.abort().catch(() => {});
    throw error;
  }
}
