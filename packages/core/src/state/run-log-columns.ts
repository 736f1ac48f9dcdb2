import type { RunLogRow } from "./run-log.js";

/** A run-log row as SQL targets store it: one column per field, named so every target agrees. */
export interface RunLogColumns {
  readonly run_id: string;
  readonly table_name: string;
  readonly at: string;
  /** Some clients give integers as text or bigints. */
  readonly format_version: number | bigint | string;
  readonly body: string;
}

/** The run-log row a selected `run_id, table_name, at, format_version, body` holds. */
export function runLogRowFromColumns(columns: RunLogColumns): RunLogRow {
  return {
    runId: columns.run_id,
    table: columns.table_name,
    at: columns.at,
    formatVersion: Number(columns.format_version),
    body: columns.body,
  };
}
