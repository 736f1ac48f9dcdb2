import { type CursorKind, type CursorValue, formatLogicalType, parseDateDays, rangePredicate, SqlloadError } from "@sqlload/core";
import { type CursorColumnType, qualifiedTable, quoteIdentifier, rangeDialect } from "./bigquery-dialect.js";
import type { BigQueryJobs } from "./bigquery-jobs.js";
import { columnOf, type FieldSchema, typeSql } from "./bigquery-types.js";

/**
 * The SELECT of a cursor maximum, exact: integers and dates as text, timestamps as INT64
 * microseconds, text by code point. `where` bounds it (a literal range, so partitions prune).
 */
export function maximumSql(dataset: string, table: string, field: FieldSchema, kind: CursorKind, where?: string): string {
  const column = quoteIdentifier(field.name);
  const expression = maxExpression(column, field, kind);
  if (!expression) throw new RangeError(`no ${kind} maximum of a ${typeSql(field)} column`);
  return `SELECT ${expression} AS v FROM ${qualifiedTable(dataset, table)}${where ? ` WHERE ${where}` : ""}`;
}

/**
 * Reads the maximum of a cursor column. With a logged position (the data's maximum when the last
 * unit committed), the read is first bounded below by it as a literal, so a table partitioned by
 * the cursor scans only the partitions at or above it. That bounded maximum is the table's
 * maximum whenever it finds a row; when it finds none (rows deleted or changed by hand, a
 * rollback), the whole column is read: the data wins over the log. Text cursors are never
 * bounded, since no partitioning can prune them.
 */
export async function readMaximum(
  jobs: BigQueryJobs,
  at: { readonly dataset: string; readonly table: string; readonly label: string },
  field: FieldSchema,
  kind: CursorKind,
  logged: CursorValue | null,
): Promise<CursorValue | null> {
  if (!maxExpression("c", field, kind)) {
    throw new SqlloadError(
      "SL302",
      `table ${at.label} column "${field.name}" is ${typeSql(field)} in BigQuery (${formatLogicalType(columnOf(field).type)}), not a ${kind} cursor`,
      { table: at.label },
    );
  }
  const read = async (where?: string) => {
    const result = await jobs.query(maximumSql(at.dataset, at.table, field, kind, where));
    return cursorOf(kind, result.rows[0]?.v);
  };
  if (logged && logged.kind === kind && kind !== "text") {
    const bound = rangePredicate(rangeDialect(field.type as CursorColumnType), {
      column: field.name,
      kind,
      range: { from: logged },
      includeNulls: false,
    });
    const bounded = await read(bound);
    if (bounded) return bounded;
  }
  return read();
}

function cursorOf(kind: CursorKind, value: unknown): CursorValue | null {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case "integer":
      return { kind, value: BigInt(value as string) };
    case "date":
      return { kind, value: parseDateDays(String(value)) as number };
    case "timestamp":
      return { kind, value: value as bigint };
    case "text":
      return { kind, value: String(value) };
  }
}

function maxExpression(column: string, field: FieldSchema, kind: CursorKind): string | undefined {
  if (field.mode === "REPEATED") return undefined;
  switch (kind) {
    case "integer":
      return field.type === "INT64" || field.type === "INTEGER" ? `CAST(MAX(${column}) AS STRING)` : undefined;
    case "date":
      return field.type === "DATE" ? `CAST(MAX(${column}) AS STRING)` : undefined;
    case "timestamp":
      if (field.type === "TIMESTAMP") return `UNIX_MICROS(MAX(${column}))`;
      if (field.type === "DATETIME") return `UNIX_MICROS(TIMESTAMP(MAX(${column})))`;
      return undefined;
    case "text":
      return field.type === "STRING" ? `CAST(MAX(CAST(${column} AS BYTES)) AS STRING)` : undefined;
  }
}
