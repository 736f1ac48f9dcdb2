import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { duckdbMessage } from "./errors.js";

/** A streamed query, as it was run. */
export interface StreamedRead {
  readonly sql: string;
  readonly values: Record<string, DuckDBValue>;
  readonly types: Record<string, DuckDBType | undefined>;
}

/**
 * DuckDB's client ends a streaming result that fails midway (a value that does not convert, a
 * memory_limit reached) exactly as one read to its end: `duckdb_fetch_chunk` has no error to give,
 * and @duckdb/node-api 1.5.6 returns an empty chunk either way (DuckDB's Rust client had the same
 * fault, duckdb-rs#832). Unchecked, a load committed the rows before the failure as if they were
 * all: 235,520 of a CSV's 300,000, its line 250,002 holding text in a number column. The failure
 * does abort an explicit transaction, which the next statement reports; so a stream is read inside
 * one (streamBatches), and its end is checked here.
 *
 * A failed read is run again to find why, counting its rows without keeping them: `WHERE read IS
 * NOT NULL` makes DuckDB compute every column, which a bare count(*) would skip (and with it a
 * value that does not convert). Its error is thrown; if it succeeds this time (a lack of memory
 * that passed), an error saying how many rows the read had given.
 */
export async function checkReadEnd(connection: DuckDBConnection, read: StreamedRead, rows: number): Promise<void> {
  try {
    await connection.run("SELECT 1");
    return;
  } catch (error) {
    if (!/transaction is aborted/i.test(duckdbMessage(error))) throw error;
  }
  await connection.run("ROLLBACK");
  await connection.run(
    `SELECT count(*) FROM (${read.sql}) AS failed_read WHERE failed_read IS NOT NULL`,
    read.values,
    read.types,
  );
  throw new Error(
    `DuckDB ended the read after ${rows.toLocaleString("en-US")} rows with an error it did not report, and read all of them when asked again: run again`,
  );
}
