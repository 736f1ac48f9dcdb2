import type { DuckDBConnection, DuckDBResultReader } from "@duckdb/node-api";
import {
  RUN_LOG_TABLE,
  type RunLogColumns,
  type RunLogReadOptions,
  type RunLogRow,
  runLogOrder,
  runLogRowsFromColumns,
  SqlloadError,
} from "@sqlload/core";
import { qualifiedName, quoteString } from "./duckdb-dialect.js";
import { duckdbErrorKind } from "./errors.js";

/**
 * The run log: `<schema>._sqlload_runs`, one row per commit, append-only. `target_name` is the
 * table (in this schema) the record belongs to and what reads filter on; `table_name` keeps the
 * record's own `table` text as core wrote it. `seq` orders records: max+1 inside the writing
 * transaction, so it grows with each commit of a table (commits of one table never overlap; two
 * tables committing at once may share a number, which no read of one table can notice). `at`
 * stays the exact ISO text it was given (quoted in SQL: AT is a keyword).
 */
const COLUMNS = `seq BIGINT NOT NULL, run_id VARCHAR NOT NULL, table_name VARCHAR NOT NULL, target_name VARCHAR NOT NULL,
  "at" VARCHAR NOT NULL, format_version INTEGER NOT NULL, body VARCHAR NOT NULL`;

export function runLogTable(schema: string): string {
  return qualifiedName(schema, RUN_LOG_TABLE);
}

/** Creates the log table; outside the unit's transaction (see DuckDBDatabase.serialize). */
export async function ensureRunLogTable(connection: DuckDBConnection, schema: string): Promise<void> {
  await connection.run(createRunLogTable(schema));
}

/** The statement that creates the log table where there is none. */
export function createRunLogTable(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS ${runLogTable(schema)} (${COLUMNS})`;
}

/** Appends a record, its values quoted into the statement: one call, where a bound statement takes three. */
export async function insertRunLog(
  connection: DuckDBConnection,
  schema: string,
  targetName: string,
  row: RunLogRow,
): Promise<void> {
  await connection.run(insertRunLogSql(schema, targetName, row));
}

/** The statement appending `row` to the run log of `schema`, its values quoted in. */
export function insertRunLogSql(schema: string, targetName: string, row: RunLogRow): string {
  const table = runLogTable(schema);
  if (!Number.isSafeInteger(row.formatVersion))
    throw new SqlloadError("SL900", `a run-log record's format version must be a whole number, not ${row.formatVersion}`);
  const text = [row.runId, row.table, targetName, row.at].map(quoteString).join(", ");
  return `INSERT INTO ${table} (seq, run_id, table_name, target_name, "at", format_version, body)
     SELECT coalesce(max(seq), 0) + 1, ${text}, ${row.formatVersion}, ${quoteString(row.body)} FROM ${table}`;
}

/**
 * The table's records in the order they were written; with `runId`, only that run's; with
 * `last`, only the newest `last`.
 *
 * Read as one JSON text that DuckDB builds: the client converts a result one value at a time
 * through its native binding, and the hundred newest records a load plans from (five columns
 * each) took 2–8 ms of the main thread that way, against one value to parse. The filter values
 * are written into the statement (quoted), which runs it in one call instead of three.
 */
export async function selectRunLog(
  connection: DuckDBConnection,
  schema: string,
  targetName: string,
  only: RunLogReadOptions & { readonly runId?: string | undefined } = {},
): Promise<RunLogRow[]> {
  const run = only.runId === undefined ? "" : ` AND run_id = ${quoteString(only.runId)}`;
  // runLogOrder picks the rows (the newest `last` come newest first); the list keeps that order.
  const direction = only.last === undefined ? "" : " DESC";
  let reader: DuckDBResultReader;
  try {
    reader = await connection.runAndReadAll(
      `SELECT CAST(to_json(coalesce(list({run_id: run_id, table_name: table_name, "at": "at", format_version: format_version, body: body} ORDER BY seq${direction}), [])) AS VARCHAR)
       FROM (SELECT seq, run_id, table_name, "at", format_version, body FROM ${runLogTable(schema)}
             WHERE target_name = ${quoteString(targetName)}${run} ${runLogOrder("seq", only)})`,
    );
  } catch (error) {
    // No log yet (nor, perhaps, its schema): nothing was ever committed here.
    if (duckdbErrorKind(error) === "missing_table") return [];
    throw error;
  }
  const [[text]] = reader.getRows() as [[string]];
  return runLogRowsFromColumns(JSON.parse(text) as RunLogColumns[], only);
}
