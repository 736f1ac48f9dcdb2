import type { TargetCapabilities } from "../connector/capabilities.js";
import type { WriteStrategy } from "../connector/target.js";
import { SqlloadError } from "../errors/sqlload-error.js";

/**
 * Refuses a logged table on a target that commits its run log after the data (SL116): a crash
 * between the two commits would leave data the log does not know, and a logged position has no
 * data cursor to fall back on. Checked from the connector's declaration before anything connects,
 * and again from the connection's before reading.
 */
export function checkLoggedTable(capabilities: TargetCapabilities, table: string): void {
  if (capabilities.commitModel !== "data-then-log") return;
  const setting = capabilities.loggedTablesSetting;
  throw new SqlloadError(
    "SL116",
    `table ${table} keeps logged state, but its target commits the run log after the data, so a crash could lose its position`,
    {
      table,
      hint: setting
        ? `Set \`${setting}\` on the target so the run log shares the data's commit, or load the table into another target.`
        : "Load the table into a target whose run log shares the data's commit.",
    },
  );
}

/** Refuses, before reading, a table whose commit units would need a strategy the target lacks (SL212). */
export function checkStrategy(capabilities: TargetCapabilities, strategy: WriteStrategy, table: string): void {
  const supported = capabilities.writeStrategies;
  if (supported.includes(strategy)) return;
  const what = strategy === "replace" ? "rebuild and swap in a table (`replace`, `--reload`)" : `load with \`${strategy}\``;
  throw new SqlloadError("SL212", `table ${table}: the target cannot ${what}; it supports ${supported.join(", ")}`, { table });
}
