import type { DuckDBConnection, DuckDBResultReader, DuckDBType } from "@duckdb/node-api";
import { DuckDBTypeId } from "./duckdb-client.js";
import { qualifiedName, quoteIdent, quoteString } from "./duckdb-dialect.js";
import { duckdbErrorKind } from "./errors.js";

export interface RelationColumnType {
  readonly name: string;
  readonly type: DuckDBType;
}

export interface RelationColumn extends RelationColumnType {
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
  const typed = await relationTypes(connection, schema, name);
  if (!typed) return null;
  const described = (await connection.runAndReadAll(`DESCRIBE ${qualifiedName(schema, name)}`)).getRowObjectsJS();
  return withNullability(typed, described);
}

function withNullability(typed: readonly RelationColumnType[], described: readonly Record<string, unknown>[]): RelationColumn[] {
  return typed.map((column, i) => ({ ...column, nullable: described[i]?.null !== "NO" }));
}

/** The names and exact types of a relation's columns, in order, or null when it does not exist: one statement, for writes. */
export async function relationTypes(
  connection: DuckDBConnection,
  schema: string,
  name: string,
): Promise<RelationColumnType[] | null> {
  let typed: DuckDBResultReader;
  try {
    typed = await connection.runAndReadAll(`SELECT * FROM ${qualifiedName(schema, name)} LIMIT 0`);
  } catch (error) {
    if (duckdbErrorKind(error) === "missing_table") return null;
    throw error;
  }
  const types = typed.columnTypes();
  return typed.columnNames().map((columnName, i) => ({ name: columnName, type: types[i] as DuckDBType }));
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
 * from there; a column whose name DuckDB quotes is matched in its quoted form. Only a VARCHAR
 * column can set one: of others, nothing is read (the catalog query is the dearest statement of a
 * describe).
 */
export async function columnCollations(
  connection: DuckDBConnection,
  schema: string,
  name: string,
  of: readonly RelationColumnType[],
): Promise<Record<string, string>> {
  if (!of.some((c) => c.type.typeId === DuckDBTypeId.VARCHAR)) return {};
  return collationsIn(await createStatement(connection, schema, name), of);
}

/** The table's CREATE statement as DuckDB's catalog keeps it, or undefined when there is none. */
async function createStatement(connection: DuckDBConnection, schema: string, name: string): Promise<string | undefined> {
  // The names as written first (the common case, and cheaper than lower() on every table's row),
  // then as DuckDB matches them, case-insensitively.
  const statement = (match: (column: string, value: string) => string) =>
    `SELECT sql FROM duckdb_tables() WHERE ${match("schema_name", schema)} AND ${match("table_name", name)}`;
  let rows = (await connection.runAndReadAll(statement((c, v) => `${c} = ${quoteString(v)}`))).getRows();
  if (rows.length === 0)
    rows = (await connection.runAndReadAll(statement((c, v) => `lower(${c}) = lower(${quoteString(v)})`))).getRows();
  const sql = rows[0]?.[0];
  return typeof sql === "string" ? sql : undefined;
}

function collationsIn(sql: string | undefined, of: readonly RelationColumnType[]): Record<string, string> {
  if (sql === undefined || !/\bCOLLATE\b/i.test(sql)) return {};
  const out: Record<string, string> = {};
  for (const column of of.filter((c) => c.type.typeId === DuckDBTypeId.VARCHAR).map((c) => c.name)) {
    const forms = [quoteIdent(column), column].map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const match = new RegExp(`[(,]\\s*(?:${forms.join("|")})\\s+VARCHAR\\s+COLLATE\\s+([A-Za-z0-9_.]+)`, "i").exec(sql);
    if (match?.[1]) out[column] = match[1];
  }
  return out;
}

/**
 * A table's columns and their collations, or null when it does not exist: `describeRelation` and
 * `columnCollations` in one, their three statements run at once on three connections. A run's
 * first statements on a table each load some of it from the file, 3–5 ms apiece one after the
 * other; DuckDB runs them side by side. The catalog query runs whatever the columns' types.
 */
export async function describeWithCollations(
  connections: readonly [DuckDBConnection, DuckDBConnection, DuckDBConnection],
  schema: string,
  name: string,
): Promise<{ readonly columns: RelationColumn[]; readonly collations: Record<string, string> } | null> {
  const [types, rows, sql] = connections;
  const [typed, described, created] = await Promise.all([
    relationTypes(types, schema, name),
    // A missing table fails here too; relationTypes says so, and a failure of its own is read again below.
    rows.runAndReadAll(`DESCRIBE ${qualifiedName(schema, name)}`).then(
      (reader) => reader.getRowObjectsJS(),
      () => undefined,
    ),
    createStatement(sql, schema, name).catch(() => undefined),
  ]);
  if (!typed) return null;
  const nullable = described ?? (await rows.runAndReadAll(`DESCRIBE ${qualifiedName(schema, name)}`)).getRowObjectsJS();
  const columns = withNullability(typed, nullable);
  return { columns, collations: collationsIn(created, columns) };
}
