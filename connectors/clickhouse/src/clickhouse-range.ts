import { type CursorKind, type CursorRange, type CursorValue, compareCursor } from "@sqlload/core";
import type { Params } from "./clickhouse-session.js";

export interface SqlCondition {
  readonly sql: string;
  readonly params: Params;
}

/**
 * A bound as SQL around a parameter. Dates and timestamps travel as integers (days,
 * microseconds) and are turned into values by functions: a DELETE is a mutation, which ClickHouse
 * stores with its parameters printed as literals, and it prints the DateTime64 of the epoch as
 * `'0'`, which it then cannot parse back.
 */
function bound(kind: CursorKind, name: string): string {
  switch (kind) {
    case "integer":
      return `{${name}:Int64}`;
    case "date":
      return `addDays(toDate32('1970-01-01'), {${name}:Int32})`;
    case "timestamp":
      return `fromUnixTimestamp64Micro({${name}:Int64}, 'UTC')`;
    case "text":
      return `{${name}:String}`;
  }
}

/** A cursor value as its parameter's text: integers, days and microseconds as digits, text as it is. */
export function cursorParam(value: CursorValue): string {
  return value.kind === "text" ? value.value : String(value.value);
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
  if (range.from) {
    parts.push(`${expression} ${range.fromInclusive === false ? ">" : ">="} ${bound(kind, `${prefix}from`)}`);
    params[`${prefix}from`] = cursorParam(range.from);
  }
  if (range.to) {
    parts.push(`${expression} < ${bound(kind, `${prefix}to`)}`);
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
