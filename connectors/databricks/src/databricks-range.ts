import { type CursorKind, type CursorValue, formatDays, type LogicalType, type RangeDialect } from "@sqlload/core";
import { type Parameters, quoteIdentifier } from "./databricks-dialect.js";
import { timestampText } from "./databricks-types.js";

/**
 * Core's range-predicate hooks for Databricks: backtick quoting, text compared by code point
 * (`c COLLATE UTF8_BINARY`, whatever collation the column has), and bounds as STRING
 * parameters cast to the cursor column's own type (TIMESTAMP_NTZ or TIMESTAMP for timestamps),
 * so a bound compares as the column's values do.
 */
export function rangeDialect(params: Parameters, cursorType: LogicalType | undefined): RangeDialect {
  return {
    quoteIdentifier,
    orderExpression: (column: string, kind: CursorKind) => (kind === "text" ? `${column} COLLATE UTF8_BINARY` : column),
    value: (value: CursorValue) => boundSql(params, value, cursorType),
  };
}

function boundSql(params: Parameters, value: CursorValue, cursorType: LogicalType | undefined): string {
  switch (value.kind) {
    case "integer":
      return `CAST(${params.add(value.value.toString())} AS BIGINT)`;
    case "date":
      return `CAST(${params.add(formatDays(value.value))} AS DATE)`;
    case "timestamp":
      return cursorType?.kind === "timestamp"
        ? `CAST(${params.add(timestampText(value.value))} AS TIMESTAMP_NTZ)`
        : `CAST(${params.add(`${timestampText(value.value)}Z`)} AS TIMESTAMP)`;
    case "text":
      return params.add(value.value);
  }
}

/** The SQL of a column's maximum as exact text: integers as digits, dates as days, timestamps as µs. */
export function maxCursorSql(column: string, kind: CursorKind): string {
  const q = quoteIdentifier(column);
  switch (kind) {
    case "integer":
      return `CAST(MAX(${q}) AS STRING)`;
    case "date":
      return `CAST(unix_date(MAX(${q})) AS STRING)`;
    case "timestamp":
      return `CAST(unix_micros(MAX(${q})) AS STRING)`;
    case "text":
      return `MAX(${q} COLLATE UTF8_BINARY)`;
  }
}
