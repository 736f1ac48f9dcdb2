import type { Column } from "@sqlload/core";
import { quoteIdentifier } from "./databricks-dialect.js";
import { databricksType } from "./databricks-types.js";

/**
 * The SQL builders of the Databricks target: pure functions from names and columns to the text
 * of one statement. Table names come in already qualified (`catalog`.`schema`.`table`).
 */

/** The row order of a unit's writes, in its build table, so a merge keeps each key's last row. */
export const SEQUENCE_COLUMN = "_sqlload_seq";

const CATALOG_MANAGED = "'delta.feature.catalogManaged' = 'supported'";
// Column mapping lets column names hold spaces and the characters Delta otherwise refuses.
const COLUMN_MAPPING = "'delta.columnMapping.mode' = 'name'";

export function tableProperties(catalogManaged: boolean): string {
  return `TBLPROPERTIES (${[COLUMN_MAPPING, ...(catalogManaged ? [CATALOG_MANAGED] : [])].join(", ")})`;
}

export function columnDefinitions(columns: readonly Column[]): string {
  return columns.map((c) => `${quoteIdentifier(c.name)} ${databricksType(c.type)}`).join(", ");
}

export function createTableSql(table: string, columns: readonly Column[], catalogManaged: boolean): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (${columnDefinitions(columns)}) ${tableProperties(catalogManaged)}`;
}

export function addColumnsSql(table: string, columns: readonly Column[]): string {
  return `ALTER TABLE ${table} ADD COLUMNS (${columnDefinitions(columns)})`;
}

export function dropTableSql(table: string): string {
  return `DROP TABLE IF EXISTS ${table}`;
}

const list = (columns: readonly Column[]) => columns.map((c) => quoteIdentifier(c.name)).join(", ");

/** Multi-row INSERT of parameter markers: `rows[i][j]` is the SQL of column j's value in row i. */
export function insertValuesSql(table: string, columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  return `INSERT INTO ${table} (${list(columns)}) VALUES ${rows.map((r) => `(${r.join(", ")})`).join(", ")}`;
}

/** Append: every row of the build table. */
export function insertSelectSql(table: string, columns: readonly Column[], build: string): string {
  return `INSERT INTO ${table} (${list(columns)}) SELECT ${list(columns)} FROM ${build}`;
}

/**
 * delete_insert as one Delta commit: the rows matching `predicate` are replaced by the build
 * table's rows (which must all match it). The SELECT gives every table column in table order,
 * as REPLACE WHERE takes no column list.
 */
export function replaceWhereSql(table: string, predicate: string, columns: readonly Column[], build: string): string {
  return `INSERT INTO ${table} REPLACE WHERE ${predicate} SELECT ${list(columns)} FROM ${build}`;
}

export function deleteWhereSql(table: string, predicate: string): string {
  return `DELETE FROM ${table} WHERE ${predicate}`;
}

/**
 * Upsert on `keys` from the build table, keeping the last row written for each key (MERGE
 * refuses two source rows for one target row). Keys compare as stored: text by code point.
 */
export function mergeSql(table: string, columns: readonly Column[], keys: readonly string[], build: string): string {
  const q = quoteIdentifier;
  const on = keys.map((k) => `tgt.${q(k)} = src.${q(k)}`).join(" AND ");
  const rest = columns.filter((c) => !keys.includes(c.name));
  const matched =
    rest.length > 0 ? ` WHEN MATCHED THEN UPDATE SET ${rest.map((c) => `${q(c.name)} = src.${q(c.name)}`).join(", ")}` : "";
  return (
    `MERGE INTO ${table} AS tgt USING (SELECT ${list(columns)} FROM ${build} QUALIFY ROW_NUMBER() OVER (PARTITION BY ${keys.map(q).join(", ")} ORDER BY ${q(SEQUENCE_COLUMN)} DESC) = 1) AS src` +
    ` ON ${on}${matched} WHEN NOT MATCHED THEN INSERT (${list(columns)}) VALUES (${columns.map((c) => `src.${q(c.name)}`).join(", ")})`
  );
}

/** replace / --reload: the build table becomes the table, in one Delta commit (readers see old or new). */
export function createOrReplaceSql(table: string, columns: readonly Column[], build: string, catalogManaged: boolean): string {
  return `CREATE OR REPLACE TABLE ${table} ${tableProperties(catalogManaged)} AS SELECT ${list(columns)} FROM ${build}`;
}

/** A non-interactive transaction: every statement lands, or none. */
export function atomicBlockSql(statements: readonly string[]): string {
  return `BEGIN ATOMIC\n${statements.map((s) => `  ${s};\n`).join("")}END;`;
}
