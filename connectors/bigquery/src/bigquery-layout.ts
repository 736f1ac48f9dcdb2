import type { Column, CursorKind } from "@sqlload/core";
import type { NewTable } from "./bigquery-catalog.js";
import { type FieldSchema, fieldOf } from "./bigquery-types.js";

/** Column types BigQuery can cluster on (https://cloud.google.com/bigquery/docs/clustered-tables). */
const CLUSTERABLE = new Set(["STRING", "INT64", "NUMERIC", "BIGNUMERIC", "DATE", "DATETIME", "TIMESTAMP", "BOOL"]);
const MAX_CLUSTER_COLUMNS = 4;

export interface LayoutOptions {
  readonly cursor?: { readonly column: string; readonly kind: CursorKind } | undefined;
  readonly primaryKey?: readonly string[] | undefined;
  /** `partition_by_cursor = false` turns partitioning off. */
  readonly partition: boolean;
}

/**
 * How a new table is laid out: partitioned by DAY on a date or timestamp cursor, so range
 * deletes and windowed reads touch only their days, and clustered on the primary key (its
 * first four clusterable columns), so merges read fewer blocks. Integer cursors are not
 * partitioned: RANGE partitioning needs bounds and an interval that only the data can tell,
 * and a wrong guess runs into the 10,000-partition limit.
 */
export function tableLayout(columns: readonly Column[], options: LayoutOptions): NewTable {
  const fields = columns.map(fieldOf);
  const byName = new Map<string, FieldSchema>(fields.map((f) => [f.name, f]));
  const cursorField = options.cursor ? byName.get(options.cursor.column) : undefined;
  const partitioned =
    options.partition &&
    cursorField !== undefined &&
    cursorField.mode !== "REPEATED" &&
    (cursorField.type === "DATE" || cursorField.type === "TIMESTAMP" || cursorField.type === "DATETIME");
  const cluster = (options.primaryKey ?? [])
    .map((k) => byName.get(k))
    .filter((f): f is FieldSchema => !!f && f.mode !== "REPEATED" && CLUSTERABLE.has(f.type))
    .slice(0, MAX_CLUSTER_COLUMNS)
    .map((f) => f.name);
  return {
    fields,
    ...(partitioned ? { timePartitioning: { type: "DAY", field: cursorField.name } } : {}),
    ...(cluster.length > 0 ? { clustering: { fields: cluster } } : {}),
  };
}
