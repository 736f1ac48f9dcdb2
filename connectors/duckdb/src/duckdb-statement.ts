import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { wrapDuckDBError } from "./errors.js";

/** Runs one statement of a commit unit, binding `values` when there are any. */
export async function runStatement(
  connection: DuckDBConnection,
  sql: string,
  values?: Record<string, DuckDBValue>,
  types?: Record<string, DuckDBType | undefined>,
): Promise<void> {
  if (values && Object.keys(values).length > 0) await connection.run(sql, values, types);
  else await connection.run(sql);
}

/** Runs a commit unit's work on `label`, a DuckDB failure becoming the coded target error that names it. */
export async function writingTable<T>(label: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw wrapDuckDBError(error, "target", `writing ${label} failed`, label);
  }
}
