import { type CursorKind, type CursorRange, type CursorValue, compareCursor, formatDays, formatMicros } from "@sqlload/core";
import type { Params } from "./clickhouse-session.js";

export interface SqlCondition {
  readonly sql: string;
  readonly params: Params;
}

const PARAM_TYPES: Readonly<Record<CursorKind, string>> = {
  integer: "Int64",
  date: "Date32",
  timestamp: "DateTime64(6, 'UTC')",
  text: "String",
};

/** A cursor value as a query parameter's text (ClickHouse parses it as the parameter's type). */
export function cursorParam(value: CursorValue): string {
  switch (value.kind) {
    case "integer":
      return value.value.toString();
    case "date":
      return formatDays(value.value);
    case "timestamp":
      return formatMicros(value.value).slice(0, 26);
    case "text":
      return value.value;
  }
}

/**
 * `expression` in a half-open cursor range, with the bounds as parameters named `<prefix>from`
 * and `<prefix>to` (several conditions can then share one statement). Open bounds are left out;
 * `includeNulls` adds the NULL-cursor rows, which are otherwise always excluded. ClickHouse
 * compares String by bytes, which for UTF-8 is code point order, so text needs no collation.
 */
export function rangeCondition(
  expression: string,
  kind: CursorKind,
  range: CursorRange,
  includeNulls: boolean,
  prefix = "",
): SqlCondition {
  const parts: string[] = [];
  const params: Record<string, string> = {};
  const type = PARAM_TYPES[kind];
  if (range.from) {
    parts.push(`${expression} ${range.fromInclusive === false ? ">" : ">="} {${prefix}from:${type}}`);
    params[`${prefix}from`] = cursorParam(range.from);
  }
  if (range.to) {
    parts.push(`${expression} < {${prefix}to:${type}}`);
    params[`${prefix}to`] = cursorParam(range.to);
  }
  const inRange = parts.join(" AND ");
  const sql = includeNulls ? (inRange ? `((${inRange}) OR ${expression} IS NULL)` : "1") : inRange || `${expression} IS NOT NULL`;
  return { sql, params };
}

/** Conditions joined by OR, their parameters merged (each made with its own prefix). */
export function anyOf(conditions: readonly SqlCondition[]): SqlCondition {
  if (conditions.length === 1) return conditions[0] as SqlCondition;
  return {
    sql: conditions.map((c) => `(${c.sql})`).join(" OR "),
    params: Object.assign({}, ...conditions.map((c) => c.params)),
  };
}

/** The cursor values a set of rows spans, to skip deletes that cannot touch them. */
export interface CursorSpan {
  min: CursorValue | null;
  max: CursorValue | null;
  nulls: boolean;
  rows: number;
}

export function emptySpan(): CursorSpan {
  return { min: null, max: null, nulls: false, rows: 0 };
}

/** Whether a delete of `range` may remove any row of `span` (false only when it certainly cannot). */
export function spanMayOverlap(span: CursorSpan | undefined, range: CursorRange, includeNulls: boolean): boolean {
  if (!span) return true;
  if (span.rows === 0) return false;
  if (span.nulls && includeNulls) return true;
  if (!span.min || !span.max) return false;
  if (range.from) {
    const c = compareCursor(span.max, range.from);
    if (range.fromInclusive === false ? c <= 0 : c < 0) return false;
  }
  if (range.to && compareCursor(span.min, range.to) >= 0) return false;
  return true;
}

/** Whether a range with these options deletes every row. */
export function deletesEverything(range: CursorRange, includeNulls: boolean): boolean {
  return includeNulls && !range.from && !range.to;
}
