import type { Column, CursorKind } from "@sqlload/core";
import type { NewTable } from "./bigquery-catalog.js";
import { type IntegerPartitionRange, integerPartitionRange, rangeResource } from "./bigquery-partition-range.js";
import { type FieldSchema, fieldOf } from "./bigquery-types.js";

/** Column types BigQuery can cluster on (https://cloud.google.com/bigquery/docs/clustered-tables). */
const CLUSTERABLE = new Set(["STRING", "INT64", "NUMERIC", "BIGNUMERIC", "DATE", "DATETIME", "TIMESTAMP", "BOOL"]);
const MAX_CLUSTER_COLUMNS = 4;

export interface LayoutOptions {
  readonly cursor?: { readonly column: string; readonly kind: CursorKind } | undefined;
  readonly primaryKey?: readonly string[] | undefined;
  /** `partition_by_cursor = false` turns partitioning off. */
  readonly partition: boolean;
  /** An integer cursor's ranges: the `partition_range` setting, else chosen by `integerPartitionRange`. */
  readonly integerRange?: IntegerPartitionRange | undefined;
}

/**
 * How a new table is laid out: partitioned by the cursor — by DAY on a date or timestamp, by
 * integer ranges (RANGE_BUCKET) on an integer — so range deletes and maximum reads with literal
 * bounds touch only their partitions, and clustered on the primary key (its first four
 * clusterable columns), so merges read fewer blocks.
 */
export function tableLayout(columns: readonly Column[], options: LayoutOptions): NewTable {
  const fields = columns.map(fieldOf);
  const byName = new Map<string, FieldSchema>(fields.map((f) => [f.name, f]));
  const cursorField = options.cursor ? byName.get(options.cursor.column) : undefined;
  const partitionable = options.partition && cursorField !== undefined && cursorField.mode !== "REPEATED";
  const byDay = partitionable && ["DATE", "TIMESTAMP", "DATETIME"].includes(cursorField.type);
  const byRange = partitionable && cursorField.type === "INT64" && options.cursor?.kind === "integer";
  const cluster = (options.primaryKey ?? [])
    .map((k) => byName.get(k))
    .filter((f): f is FieldSchema => !!f && f.mode !== "REPEATED" && CLUSTERABLE.has(f.type))
    .slice(0, MAX_CLUSTER_COLUMNS)
    .map((f) => f.name);
  return {
    fields,
    ...(byDay ? { timePartitioning: { type: "DAY", field: cursorField.name } } : {}),
    ...(byRange
      ? {
          rangePartitioning: {
            field: cursorField.name,
            range: rangeResource(options.integerRange ?? integerPartitionRange()),
          },
        }
      : {}),
    ...(cluster.length > 0 ? { clustering: { fields: cluster } } : {}),
  };
}
