import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { type CursorKind, type FileScan, type FileScanWritten, SqlloadError } from "@sqlload/core";
import { quoteIdent, quoteString } from "./duckdb-dialect.js";
import { cursorFromDuckDB } from "./duckdb-values.js";

/**
 * Runs a DuckDB file scan (a files source's read of its Parquet or CSV files) into `table` on the
 * unit's connection, inside its transaction: DuckDB's own readers fill the table, and no row
 * passes through sqlload. Returns the rows inserted and the table's cursor maximum after them.
 */
export async function ingestScan(
  connection: DuckDBConnection,
  table: string,
  scan: FileScan,
  columns: readonly string[],
  cursor: { readonly column: string; readonly kind: CursorKind } | undefined,
): Promise<FileScanWritten> {
  if (scan.engine !== "duckdb") throw new SqlloadError("SL900", `a ${scan.engine} file scan was given to the DuckDB target`);
  const settings = Object.entries(scan.settings);
  for (const [name] of settings) {
    if (!/^[A-Za-z_]+$/.test(name)) throw new SqlloadError("SL900", `file scan setting "${name}" is not a setting name`);
  }
  const list = columns.map(quoteIdent).join(", ");
  // The scan's statements mean what they mean under its settings (a TIMESTAMPTZ cast under UTC).
  for (const [name, value] of settings) await connection.run(`SET SESSION ${name} = ${quoteString(value)}`);
  // The RESETs are not in a `finally`: a failed INSERT aborts the unit's transaction, which then
  // refuses them too ("Current transaction is aborted"), and that hid what failed (a CSV line that
  // does not convert). A failed unit's connection is closed with it, its settings too.
  const result = await connection.run(
    `INSERT INTO ${table} (${list}) SELECT ${list} FROM (${scan.sql}) AS scan`,
    scan.values as Record<string, DuckDBValue>,
    scan.types as Record<string, DuckDBType | undefined>,
  );
  const rows = result.rowsChanged;
  for (const [name] of settings) await connection.run(`RESET SESSION ${name}`);
  if (!cursor) return { rows, max: null };
  const reader = await connection.runAndReadAll(`SELECT max(${quoteIdent(cursor.column)}) FROM ${table}`);
  const value = reader.getRows()[0]?.[0];
  if (value === null || value === undefined) return { rows, max: null };
  const max = cursorFromDuckDB(cursor.kind, reader.columnTypes()[0] as DuckDBType, value);
  if (!max) throw new SqlloadError("SL305", `${table}: the maximum of ${cursor.column} is not a ${cursor.kind}`);
  return { rows, max };
}
