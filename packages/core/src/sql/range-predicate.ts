import type { CursorRange } from "../connector/source.js";
import type { CursorKind } from "../cursor/cursor-kind.js";
import type { CursorValue } from "../cursor/cursor-value.js";

/**
 * The few things core needs from a SQL dialect to write a cursor range. Everything else about the
 * range (which bounds, which operators, the NULL rule) is core's, so every target and source agrees.
 */
export interface RangeDialect {
  /** `"Odd ""Name"""`, `` `col` ``: the engine's quoting of one identifier. */
  quoteIdentifier(name: string): string;
  /**
   * The column as compared in cursor order. Text must compare by Unicode code point whatever the
   * column's collation: `c COLLATE "C"` (Postgres), `COLLATE(c, 'utf8')` (Snowflake),
   * `CAST(c AS BYTES)` (BigQuery). Other kinds, and engines that already compare text by code point,
   * return the column as given.
   */
  orderExpression(quotedColumn: string, kind: CursorKind): string;
  /**
   * A bound's SQL: a literal, or a placeholder after the dialect recorded a parameter. It must
   * compare with `orderExpression` in the same order (for BigQuery text, bytes too).
   */
  value(value: CursorValue, bound: "from" | "to"): string;
}

export interface RangePredicateOptions {
  /** The cursor column's name, unquoted. */
  readonly column: string;
  readonly kind: CursorKind;
  readonly range: CursorRange;
  /** A full read (first run, `--reload`) also takes rows whose cursor is NULL; an incremental one never does. */
  readonly includeNulls: boolean;
  /** A table alias or name to qualify the column with (`t`, `"raw"."x"`), already quoted. */
  readonly qualifier?: string | undefined;
}

/**
 * The SQL condition for "the cursor lies in `range`": `from` inclusive unless `fromInclusive` is
 * false, `to` exclusive, open bounds left out. NULL cursors are inside only when `includeNulls`.
 * Always a condition (never empty), so callers write `WHERE ${rangePredicate(…)}` unconditionally.
 */
export function rangePredicate(dialect: RangeDialect, options: RangePredicateOptions): string {
  const { kind, range, includeNulls } = options;
  const column = options.qualifier
    ? `${options.qualifier}.${dialect.quoteIdentifier(options.column)}`
    : dialect.quoteIdentifier(options.column);
  const ordered = dialect.orderExpression(column, kind);
  const parts: string[] = [];
  if (range.from) parts.push(`${ordered} ${range.fromInclusive === false ? ">" : ">="} ${dialect.value(range.from, "from")}`);
  if (range.to) parts.push(`${ordered} < ${dialect.value(range.to, "to")}`);
  const inRange = parts.join(" AND ");
  if (includeNulls) return inRange ? `(${column} IS NULL OR (${inRange}))` : "TRUE";
  return inRange || `${column} IS NOT NULL`;
}

/** `ORDER BY` text for a read in cursor order, NULLs first (they sort before every value in a full read). */
export function cursorOrderBy(dialect: RangeDialect, column: string, kind: CursorKind): string {
  const quoted = dialect.quoteIdentifier(column);
  return `${dialect.orderExpression(quoted, kind)} ASC NULLS FIRST`;
}
