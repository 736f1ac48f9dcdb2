import type { TargetTableRef } from "@sqlload/core";
import { quoteIdent } from "./snowflake-dialect.js";
import type { SnowflakeSession } from "./snowflake-session.js";
import type { CatalogColumn } from "./snowflake-types.js";

/** A table's columns in order, with collations (for `plan`); null when the table does not exist. */
export async function describeColumns(
  session: SnowflakeSession,
  database: string,
  ref: TargetTableRef,
): Promise<CatalogColumn[] | null> {
  const rows = await session.runRetrying(
    `SELECT "COLUMN_NAME" AS "name", "DATA_TYPE" AS "type", "NUMERIC_PRECISION" AS "precision", "NUMERIC_SCALE" AS "scale", "IS_NULLABLE" AS "nullable", "COLLATION_NAME" AS "collation" FROM ${quoteIdent(database)}."INFORMATION_SCHEMA"."COLUMNS" WHERE "TABLE_SCHEMA" = ? AND "TABLE_NAME" = ? ORDER BY "ORDINAL_POSITION"`,
    [ref.schema, ref.name],
  );
  if (rows.length === 0) return null;
  return rows.map((r) => ({
    name: String(r.name),
    dataType: String(r.type),
    precision: r.precision === null || r.precision === undefined ? null : Number(r.precision),
    scale: r.scale === null || r.scale === undefined ? null : Number(r.scale),
    nullable: r.nullable === "YES",
    collation: r.collation ?? null,
  }));
}

export async function ensureSchema(session: SnowflakeSession, schema: string): Promise<void> {
  await session.runRetrying(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
}
