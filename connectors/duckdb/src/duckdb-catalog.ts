import type { DuckDBConnection, DuckDBType } from "@duckdb/node-api";
import { qualifiedName } from "./duckdb-dialect.js";
import { duckdbErrorKind } from "./errors.js";

export interface RelationColumn {
  readonly name: string;
  readonly type: DuckDBType;
  readonly nullable: boolean;
}

/**
 * The columns of a table or view, in order, or null when it does not exist. Resolved by DuckDB's
 * own binder (DESCRIBE, and a zero-row SELECT for the exact types), so name matching follows
 * DuckDB's rules (case-insensitive) rather than a string comparison against the catalog views.
 */
export async function describeRelation(
  connection: DuckDBConnection,
  schema: string,
  name: string,
): Promise<RelationColumn[] | null> {
  const table = qualifiedName(schema, name);
  let described: Record<string, unknown>[];
  try {
    described = (await connection.runAndReadAll(`DESCRIBE ${table}`)).getRowObjectsJS() as Record<string, unknown>[];
  } catch (error) {
    if (duckdbErrorKind(error) === "missing_table") return null;
    throw error;
  }
  const typed = await connection.runAndReadAll(`SELECT * FROM ${table} LIMIT 0`);
  const types = typed.columnTypes();
  return typed.columnNames().map((columnName, i) => ({
    name: columnName,
    type: types[i] as DuckDBType,
    nullable: described[i]?.null !== "NO",
  }));
}

export async function relationExists(connection: DuckDBConnection, schema: string, name: string): Promise<boolean> {
  try {
    await connection.run(`SELECT 1 FROM ${qualifiedName(schema, name)} LIMIT 0`);
    return true;
  } catch (error) {
    if (duckdbErrorKind(error) === "missing_table") return false;
    throw error;
  }
}
