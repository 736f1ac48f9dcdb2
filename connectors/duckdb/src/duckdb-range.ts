import type { DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { type RangeDialect, type RangePredicateOptions, rangePredicate } from "@sqlload/core";
import { BIGINT } from "./duckdb-client.js";
import { quoteIdent } from "./duckdb-dialect.js";
import { cursorParameter } from "./duckdb-values.js";

/** SQL with the values it binds by name. */
export interface SqlCondition {
  readonly sql: string;
  readonly values: Record<string, DuckDBValue>;
  readonly types: Record<string, DuckDBType | undefined>;
}

export interface DuckDBRangeOptions extends RangePredicateOptions {
  /** Whether a timestamp cursor has a zone: its bounds then bind as TIMESTAMPTZ. */
  readonly withZone: boolean;
  /** Names the bounds `$<prefix>from` and `$<prefix>to`, so several ranges can share one statement. */
  readonly prefix?: string | undefined;
}

/**
 * Core's cursor range in DuckDB, its bounds bound as parameters (never spliced into the text).
 * DuckDB compares VARCHAR by UTF-8 bytes, which is code point order: text needs no collation.
 */
export function duckdbRange(options: DuckDBRangeOptions): SqlCondition {
  const values: Record<string, DuckDBValue> = {};
  const types: Record<string, DuckDBType | undefined> = {};
  const dialect: RangeDialect = {
    quoteIdentifier: quoteIdent,
    orderExpression: (column) => column,
    value(value, bound) {
      const name = `${options.prefix ?? ""}${bound}`;
      values[name] = cursorParameter(value, options.withZone);
      // The client would bind a bigint as HUGEINT; BIGINT keeps the comparison on the column's own width.
      if (value.kind === "integer") types[name] = BIGINT;
      return `$${name}`;
    },
  };
  return { sql: rangePredicate(dialect, options), values, types };
}
