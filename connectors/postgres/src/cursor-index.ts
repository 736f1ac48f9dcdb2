import type { CursorKind } from "@sqlload/core";
import type { LeadingIndex } from "./postgres-catalog.js";
import { type PgColumn, qualifiedName, quoteIdent } from "./postgres-dialect.js";

/**
 * Which of the indexes led by a cursor column serve reads in cursor order and its maximum: btrees
 * led by what sqlload compares (the column; for a text cursor of a type COLLATE does not apply to,
 * the column cast to text), and for a text cursor only those in code point order (the column's own
 * collation when that is code point order, `native`, else `COLLATE "C"`), as sqlload compares text.
 */
export function cursorIndexes(
  indexes: readonly LeadingIndex[],
  column: PgColumn,
  kind: CursorKind,
  native: boolean,
): { readonly btrees: readonly LeadingIndex[]; readonly usable: readonly LeadingIndex[] } {
  const castToText = kind === "text" && !native && !column.textLike;
  const btrees = indexes.filter((i) => i.method === "btree" && i.asText === castToText);
  const usable = btrees.filter((i) => kind !== "text" || (native ? i.collation === column.collation : i.collation === "C"));
  return { btrees, usable };
}

/**
 * The statement that creates an index serving the cursor (see cursorIndexes): on the column itself
 * unless it is text whose own order is not code point order (`native` false), then in `COLLATE "C"`.
 */
export function createCursorIndexSql(
  ref: { readonly schema?: string | undefined; readonly name: string },
  column: PgColumn,
  kind: CursorKind,
  native: boolean,
): string {
  const name = quoteIdent(column.name);
  const key = kind !== "text" || native ? name : column.textLike ? `${name} COLLATE "C"` : `(${name}::text COLLATE "C")`;
  return `CREATE INDEX ON ${qualifiedName(ref)} (${key});`;
}
