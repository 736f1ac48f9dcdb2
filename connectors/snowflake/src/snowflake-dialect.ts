import {
  type CursorKind,
  type CursorValue,
  formatDays,
  type RangeDialect,
  type RangePredicateOptions,
  rangePredicate,
  type TargetTableRef,
} from "@sqlload/core";

/** `"Odd ""Name"""`: Snowflake keeps a double-quoted identifier exactly, case included. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function qualifiedTable(ref: TargetTableRef): string {
  return `${quoteIdent(ref.schema)}.${quoteIdent(ref.name)}`;
}

/**
 * Text compared as `COLLATE(c, 'utf8')`: Snowflake's binary UTF-8 order is code point order, and
 * the function wins over a column's collation or the account's `DEFAULT_DDL_COLLATION`.
 */
export function codePointText(expression: string): string {
  return `COLLATE(${expression}, 'utf8')`;
}

/** `2026-10-12 16:00:00.123456`: microseconds since the epoch as the UTC wall time Snowflake casts from. */
export function microsText(micros: bigint): string {
  const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const rest = Number(micros - ms * 1000n);
  const iso = new Date(Number(ms)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}${String(rest).padStart(3, "0")}`;
}

/**
 * A statement's positional binds. Every value travels as text (the driver sends JavaScript numbers
 * through doubles) and is cast in SQL to the type it compares with.
 */
export class Binds {
  readonly values: (string | null)[] = [];

  add(value: string | null, cast?: string): string {
    this.values.push(value);
    return cast ? `?::${cast}` : "?";
  }
}

/** The range hooks of core's `rangePredicate`, recording bound values as binds of one statement. */
export function rangeDialect(binds: Binds): RangeDialect {
  return {
    quoteIdentifier: quoteIdent,
    orderExpression: (column, kind) => (kind === "text" ? codePointText(column) : column),
    value: (value) => boundCursor(binds, value),
  };
}

function boundCursor(binds: Binds, value: CursorValue): string {
  switch (value.kind) {
    case "integer":
      return binds.add(value.value.toString(), "NUMBER(38,0)");
    case "date":
      return binds.add(formatDays(value.value), "DATE");
    case "timestamp":
      // The session runs in UTC, so an NTZ bound compares with TIMESTAMP_TZ columns at the same instant.
      return binds.add(microsText(value.value), "TIMESTAMP_NTZ(6)");
    case "text":
      return codePointText(binds.add(value.value));
  }
}

/** A range condition with its binds. */
export function rangeCondition(options: RangePredicateOptions, binds: Binds): string {
  return rangePredicate(rangeDialect(binds), options);
}

/**
 * The SELECT expression giving a column's maximum in cursor order as exact text: integers and
 * timestamps (epoch microseconds) as digits, dates as `YYYY-MM-DD`, text by code point.
 */
export function maxExpression(column: string, kind: CursorKind): string {
  switch (kind) {
    case "integer":
      return `TO_VARCHAR(MAX(${column}))`;
    case "date":
      return `TO_VARCHAR(MAX(${column}), 'YYYY-MM-DD')`;
    case "timestamp":
      return `TO_VARCHAR(DATE_PART(EPOCH_MICROSECOND, MAX(${column})))`;
    case "text":
      return `MAX(${codePointText(column)})`;
  }
}
