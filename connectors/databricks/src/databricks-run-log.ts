import {
  type Column,
  RUN_LOG_TABLE,
  type RunLogColumns,
  type RunLogRow,
  runLogOrder,
  runLogRowsFromColumns,
  type TargetTableRef,
} from "@sqlload/core";
import { type Parameters, qualifiedTable, quoteIdentifier } from "./databricks-dialect.js";
import type { DatabricksSession } from "./databricks-session.js";
import { createTableSql } from "./databricks-statements.js";

/**
 * The run log: `_sqlload_runs`, a Delta table in each target schema, one row per record,
 * append-only. `target_name` is the table a record belongs to (`schema.table`, what reads filter
 * on); `pos` orders one table's records: the next numbers after its largest, taken in the
 * statement that inserts them (a table's writers are serialized by its lock).
 */
export const RUN_LOG_COLUMNS: readonly Column[] = [
  { name: "target_name", type: { kind: "text" }, nullable: false },
  { name: "pos", type: { kind: "int64" }, nullable: false },
  { name: "run_id", type: { kind: "text" }, nullable: false },
  { name: "table_name", type: { kind: "text" }, nullable: false },
  { name: "at", type: { kind: "text" }, nullable: false },
  { name: "format_version", type: { kind: "int32" }, nullable: false },
  { name: "body", type: { kind: "text" }, nullable: false },
];

export function runLogTable(catalog: string, schema: string): string {
  return qualifiedTable(catalog, { schema, name: RUN_LOG_TABLE });
}

export function ensureRunLogSql(catalog: string, schema: string, catalogManaged: boolean): string {
  return createTableSql(runLogTable(catalog, schema), RUN_LOG_COLUMNS, catalogManaged);
}

/** One INSERT of a unit's records, numbered after the table's last one. */
export function insertRunLogSql(
  catalog: string,
  ref: TargetTableRef,
  targetName: string,
  rows: readonly RunLogRow[],
  params: Parameters,
): string {
  const q = quoteIdentifier;
  const table = runLogTable(catalog, ref.schema);
  const name = params.add(targetName);
  const values = rows
    .map(
      (row, i) =>
        `(${i + 1}, ${params.add(row.runId)}, ${params.add(row.table)}, ${params.add(row.at)}, ${params.add(String(row.formatVersion))}, ${params.add(row.body)})`,
    )
    .join(", ");
  const columns = RUN_LOG_COLUMNS.map((c) => q(c.name)).join(", ");
  return (
    `INSERT INTO ${table} (${columns}) SELECT ${name}, b.base + v.k, v.run_id, v.table_name, v.logged_at, CAST(v.format_version AS INT), v.body` +
    ` FROM (VALUES ${values}) AS v(k, run_id, table_name, logged_at, format_version, body)` +
    ` CROSS JOIN (SELECT COALESCE(MAX(${q("pos")}), 0) AS base FROM ${table} WHERE ${q("target_name")} = ${name}) AS b`
  );
}

/**
 * The table's records in the order they were written; with `last`, only the newest `last`; none
 * when the schema has no run log yet.
 */
export async function readRunLog(
  session: DatabricksSession,
  catalog: string,
  ref: TargetTableRef,
  targetName: string,
  last?: number,
): Promise<RunLogRow[]> {
  const q = quoteIdentifier;
  let rows: Awaited<ReturnType<DatabricksSession["query"]>>;
  try {
    rows = await session.query(
      `SELECT ${q("run_id")} AS run_id, ${q("table_name")} AS table_name, ${q("at")} AS at, CAST(${q("format_version")} AS STRING) AS format_version, ${q("body")} AS body FROM ${runLogTable(catalog, ref.schema)} WHERE ${q("target_name")} = :t ${runLogOrder(q("pos"), { last })}`,
      { t: targetName },
    );
  } catch (error) {
    if (/^\[(TABLE_OR_VIEW_NOT_FOUND|SCHEMA_NOT_FOUND)\]/.test((error as Error).message ?? "")) return [];
    throw error;
  }
  return runLogRowsFromColumns(rows as unknown as RunLogColumns[], { last });
}
