import type { RunLogReadOptions } from "../connector/target.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import type { RunLogRow } from "./run-log.js";

/**
 * A run-log row as SQL targets store it: one column per field, named so every target agrees. The
 * values are what a client gives back: text, or for the format version also a number or bigint.
 * NULL (in a column declared without NOT NULL) reads as empty text; a record whose body is empty
 * does not decode, and blocks its table as any unreadable record does.
 */
export interface RunLogColumns {
  readonly run_id: string | null;
  readonly table_name: string | null;
  readonly at: string | null;
  readonly format_version: number | bigint | string | null;
  readonly body: string | null;
}

/** The run-log row a selected `run_id, table_name, at, format_version, body` holds. */
export function runLogRowFromColumns(columns: RunLogColumns): RunLogRow {
  return {
    runId: columns.run_id ?? "",
    table: columns.table_name ?? "",
    at: columns.at ?? "",
    formatVersion: Number(columns.format_version),
    body: columns.body ?? "",
  };
}

/**
 * How a SQL target's run-log query ends, ordered by `seq` (the column it numbers records by, as
 * the dialect quotes it): the whole log in the order written, or with `last` only the newest
 * `last`, newest first. `runLogRowsFromColumns` puts those back in the order written.
 */
export function runLogOrder(seq: string, options: RunLogReadOptions = {}): string {
  const { last } = options;
  if (last === undefined) return `ORDER BY ${seq}`;
  // Written into the SQL: every dialect takes a literal LIMIT, not every one a bound one.
  if (!Number.isSafeInteger(last) || last < 0)
    throw new SqlloadError("SL900", `a run-log read's last must be a whole number, not ${last}`);
  return `ORDER BY ${seq} DESC LIMIT ${last}`;
}

/** What `readRunLog` returns for the rows a query ending in `runLogOrder(seq, options)` selected: the order written. */
export function runLogRowsFromColumns(selected: readonly RunLogColumns[], options: RunLogReadOptions = {}): RunLogRow[] {
  const rows = selected.map(runLogRowFromColumns);
  return options.last === undefined ? rows : rows.reverse();
}
