import {
  type CursorKind,
  type CursorRange,
  type CursorValue,
  overlapsCursorRange,
  type RangeDialect,
  type RangePredicateOptions,
  rangePredicate,
} from "@sqlload/core";
import { quoteIdent } from "./clickhouse-dialect.js";
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
function cursorParam(value: CursorValue): string {
  return value.kind === "text" ? value.value : String(value.value);
}

/**
 * Core's cursor range in ClickHouse, with the bounds as parameters named `<prefix>from` and
 * `<prefix>to` (several conditions can then share one statement). ClickHouse compares String by
 * bytes, which for UTF-8 is code point order, so text needs no collation.
 */
export function clickhouseRange(options: RangePredicateOptions & { readonly prefix?: string | undefined }): SqlCondition {
  const params: Record<string, string> = {};
  const dialect: RangeDialect = {
    quoteIdentifier: quoteIdent,
    orderExpression: (column) => column,
    value(value, which) {
      const name = `${options.prefix ?? ""}${which}`;
      params[name] = cursorParam(value);
      return bound(options.kind, name);
    },
  };
  return { sql: rangePredicate(dialect, options), params };
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
  return !!span.min && !!span.max && overlapsCursorRange(span.min, span.max, range);
}

/** Whether a range with these options deletes every row. */
export function deletesEverything(range: CursorRange, includeNulls: boolean): boolean {
  return includeNulls && !range.from && !range.to;
}
