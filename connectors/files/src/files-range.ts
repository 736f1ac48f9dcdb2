import {
  BIGINT,
  DuckDBDateValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  type DuckDBType,
  type DuckDBValue,
} from "@duckdb/node-api";
import { type CursorRange, type CursorValue, compareCursor, type LogicalType } from "@sqlload/core";

export interface SqlCondition {
  readonly sql: string;
  readonly values: Record<string, DuckDBValue>;
  readonly types: Record<string, DuckDBType | undefined>;
}

/** A cursor value as a parameter of the column's logical type (a timestamp with or without zone). */
function parameter(value: CursorValue, type: LogicalType): DuckDBValue {
  switch (value.kind) {
    case "integer":
      return value.value;
    case "date":
      return new DuckDBDateValue(value.value);
    case "timestamp":
      return type.kind === "timestamptz" ? new DuckDBTimestampTZValue(value.value) : new DuckDBTimestampValue(value.value);
    case "text":
      return value.value;
  }
}

/**
 * `expression` in a half-open cursor range, with bound parameters named `<prefix>from` and
 * `<prefix>to`. `includeNulls` adds the NULL-cursor rows; without it they are excluded. DuckDB
 * compares VARCHAR by UTF-8 bytes, which is code point order, so text needs no collation.
 */
export function rangeCondition(
  expression: string,
  type: LogicalType,
  range: CursorRange,
  includeNulls: boolean,
  prefix = "",
): SqlCondition {
  const parts: string[] = [];
  const values: Record<string, DuckDBValue> = {};
  const types: Record<string, DuckDBType | undefined> = {};
  const bind = (name: string, value: CursorValue) => {
    values[prefix + name] = parameter(value, type);
    // The client would bind a bigint as HUGEINT; BIGINT keeps the comparison on the column's width.
    if (value.kind === "integer") types[prefix + name] = BIGINT;
  };
  if (range.from) {
    parts.push(`${expression} ${range.fromInclusive === false ? ">" : ">="} $${prefix}from`);
    bind("from", range.from);
  }
  if (range.to) {
    parts.push(`${expression} < $${prefix}to`);
    bind("to", range.to);
  }
  const inRange = parts.join(" AND ");
  const sql = includeNulls
    ? inRange
      ? `((${inRange}) OR ${expression} IS NULL)`
      : "TRUE"
    : inRange || `${expression} IS NOT NULL`;
  return { sql, values, types };
}

/** Whether a non-NULL value lies in the range. */
export function inRange(value: CursorValue, range: CursorRange): boolean {
  if (range.from) {
    const c = compareCursor(value, range.from);
    if (range.fromInclusive === false ? c <= 0 : c < 0) return false;
  }
  return !range.to || compareCursor(value, range.to) < 0;
}

/** Whether any value of `[min, max]` (inclusive) may lie in the range. */
export function overlaps(min: CursorValue, max: CursorValue, range: CursorRange): boolean {
  if (range.from) {
    const c = compareCursor(max, range.from);
    if (range.fromInclusive === false ? c <= 0 : c < 0) return false;
  }
  return !range.to || compareCursor(min, range.to) < 0;
}

/** Whether every value of `[min, max]` lies in the range. */
export function covers(range: CursorRange, min: CursorValue, max: CursorValue): boolean {
  return inRange(min, range) && inRange(max, range);
}
