import type { TargetCapabilities } from "../connector/capabilities.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import type { TablePlan } from "../plan/plan-table.js";
import type { CommitSchedule } from "./commit-schedule.js";

/**
 * Whether a rebuild of this table must commit its rows and its run-log record in one
 * transaction (`CommitUnitOptions.recordWithData`) instead of swapping a build in.
 *
 * On a target that records a replace after its swap (`replaceRecordAfterSwap`), a crash between
 * the two leaves the new rows with the old record. Most tables survive that: a cursor column
 * lets the data's maximum win over the log, and `delete_insert`, `merge` and `replace` overwrite
 * what they read again. A logged table without a cursor under `append` does not: its position
 * is only in the log, so the next run would start from the old state and append rows the new
 * table already holds (recording before the swap would lose rows instead). Only such a rebuild
 * gives up the swap; every other keeps it, being cheaper.
 */
export function replacesWithRecord(
  plan: Pick<TablePlan, "strategy" | "cursor">,
  schedule: Pick<CommitSchedule, "rebuild">,
  capabilities: Pick<TargetCapabilities, "replaceRecordAfterSwap">,
  logged: boolean,
): boolean {
  return (
    schedule.rebuild && capabilities.replaceRecordAfterSwap && logged && plan.cursor === undefined && plan.strategy === "append"
  );
}

/** What `plan` says of such a rebuild. */
export const IN_PLACE_NOTE =
  "rebuilt in place, not swapped: the table's position is only in the run log and this target records a swap after it, so its rows are replaced in the live table in the commit that records the position";

/**
 * Such a rebuild first evolves the live table's columns (DDL before the transaction, as schema
 * evolution does), so a column the live table cannot hold fails here, before anything changed.
 * The usual fix for a changed type, `--reload`, is what just failed: say what works instead.
 */
export function replaceWithRecordError(error: unknown, table: string): unknown {
  if (!(error instanceof SqlloadError) || error.code !== "SL302") return error;
  return new SqlloadError("SL302", `${error.message}; ${table} is rebuilt in place, which keeps its columns' types`, {
    table,
    cause: error,
    hint:
      "This table keeps its position only in the run log, and on this target a rebuild replaces its rows inside the live table " +
      "(so the position commits with them), which cannot change a column's type. Drop the target table by hand and run " +
      "`--reload` again (it starts over into a new table), or cast the column in the source.",
  });
}
