import type { DuckDBConnection, DuckDBType } from "@duckdb/node-api";
import { qualifiedName, quoteIdent, quoteString } from "./duckdb-dialect.js";
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

/**
 * The collation each VARCHAR column of a table sets (`k VARCHAR COLLATE nocase`), by column name.
 * DuckDB keeps it only in the table's CREATE statement (the catalog views show none), so it is read
 * from there; a column whose name DuckDB quotes is matched in its quoted form.
 */
export async function columnCollations(
  connection: DuckDBConnection,
  schema: string,
  name: string,
  columns: readonly string[],
): Promise<Record<string, string>> {
  const reader = await connection.runAndReadAll(
    `SELECT sql FROM duckdb_tables() WHERE lower(schema_name) = lower(${quoteString(schema)}) AND lower(table_name) = lower(${quoteString(name)})`,
  );
  const sql = reader.getRows()[0]?.[0];
  if (typeof sql !== "string" || !/\bCOLLATE\b/i.test(sql)) return {};
  const out: Record<string, string> = {};
  for (const column of columns) {
    const forms = [quoteIdent(column), column].map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const match = new RegExp(`[(,]\\s*(?:${forms.join("|")})\\s+VARCHAR\\s+COLLATE\\s+([A-Za-z0-9_.]+)`, "i").exec(sql);
    if (match?.[1]) out[column] = match[1];
  }
  return out;
}
