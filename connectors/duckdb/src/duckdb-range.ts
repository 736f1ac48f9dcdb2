import type { DuckDBType, DuckDBValue } from "@duckdb/node-api";
import type { CursorRange, CursorValue } from "@sqlload/core";
import { BIGINT } from "./duckdb-client.js";
import { cursorParameter } from "./duckdb-values.js";

export interface SqlCondition {
  readonly sql: string;
  readonly values: Record<string, DuckDBValue>;
  readonly types: Record<string, DuckDBType | undefined>;
}

/**
 * `expression` in a half-open cursor range, as SQL with bound parameters (`$from`, `$to`): values
 * are never spliced into the text. Open bounds are left out; `includeNulls` adds the NULL-cursor
 * rows, and without it they are always excluded. DuckDB compares VARCHAR by byte, which for
 * UTF-8 is code point order, so text needs no collation here.
 */
export function rangeCondition(expression: string, column: DuckDBType, range: CursorRange, includeNulls: boolean): SqlCondition {
  const parts: string[] = [];
  const values: Record<string, DuckDBValue> = {};
  const types: Record<string, DuckDBType | undefined> = {};
  const bind = (name: string, value: CursorValue) => {
    values[name] = cursorParameter(value, column);
    // The client would bind a bigint as HUGEINT; BIGINT keeps the comparison on the column's own width.
    if (value.kind === "integer") types[name] = BIGINT;
  };
  if (range.from) {
    parts.push(`${expression} ${range.fromInclusive === false ? ">" : ">="} $from`);
    bind("from", range.from);
  }
  if (range.to) {
    parts.push(`${expression} < $to`);
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
