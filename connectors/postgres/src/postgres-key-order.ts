import { LINGUISTIC_SAMPLE, linguisticOrderWarning } from "@sqlload/core";
import type { Queryable } from "./postgres-catalog.js";
import { quoteIdent } from "./postgres-dialect.js";
import type { ResolvedTable } from "./postgres-source.js";

/**
 * The linguistic-order warning for a text cursor that does not sort by code point: the highest
 * keys under the column's own collation (an index on the column serves this), checked for rising
 * by code point too. Nothing for other cursors, whose order every collation agrees on.
 */
export async function keyOrderWarning(db: Queryable, table: ResolvedTable): Promise<string | undefined> {
  const cursor = table.cursor;
  if (cursor?.kind !== "text" || cursor.expression === quoteIdent(cursor.column.name)) return undefined;
  const name = quoteIdent(cursor.column.name);
  const value = cursor.column.textLike ? name : `${name}::text`;
  const result = await db.query<{ key: string }>(
    `SELECT ${value} AS key FROM ${table.sql} WHERE ${name} IS NOT NULL ORDER BY ${name} DESC LIMIT ${LINGUISTIC_SAMPLE}`,
  );
  return linguisticOrderWarning(cursor.column.name, result.rows.map((r) => r.key).reverse());
}
