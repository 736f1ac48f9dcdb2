import { RUN_LOG_TABLE, type RunLogColumns, type RunLogRow, runLogOrder, runLogRowsFromColumns } from "@sqlload/core";
import { qualifiedTable } from "./bigquery-dialect.js";
import type { BigQueryJobs, QueryParameter } from "./bigquery-jobs.js";
import type { FieldSchema } from "./bigquery-types.js";

/**
 * `_sqlload_runs` in the dataset: append-only (INSERT only, never UPDATE or DELETE, so a
 * commit's record never conflicts with another table's commit). `target_name` is the table the
 * record belongs to, `table_name` the record's own text; `seq` orders one table's records
 * (max + 1 inside the writing transaction; commits of one table never overlap).
 */
export const RUN_LOG_FIELDS: readonly FieldSchema[] = [
  { name: "seq", type: "INT64", mode: "REQUIRED" },
  { name: "run_id", type: "STRING", mode: "REQUIRED" },
  { name: "table_name", type: "STRING", mode: "REQUIRED" },
  { name: "target_name", type: "STRING", mode: "REQUIRED" },
  { name: "at", type: "STRING", mode: "REQUIRED" },
  { name: "format_version", type: "INT64", mode: "REQUIRED" },
  { name: "body", type: "STRING", mode: "REQUIRED" },
];

export function runLogTable(dataset: string): string {
  return qualifiedTable(dataset, RUN_LOG_TABLE);
}

/** The INSERT of one record, its parameters named with `suffix` so several fit in one script. */
export function insertRunLogSql(
  dataset: string,
  targetName: string,
  row: RunLogRow,
  suffix: string,
): { sql: string; params: Record<string, QueryParameter> } {
  const table = runLogTable(dataset);
  const p = (name: string) => `@${name}_${suffix}`;
  return {
    sql: `INSERT INTO ${table} (seq, run_id, table_name, target_name, \`at\`, format_version, body) SELECT COALESCE(MAX(seq), 0) + 1, ${p("run_id")}, ${p("table_name")}, ${p("target_name")}, ${p("at")}, ${p("format_version")}, ${p("body")} FROM ${table}`,
    params: {
      [`run_id_${suffix}`]: { type: "STRING", value: row.runId },
      [`table_name_${suffix}`]: { type: "STRING", value: row.table },
      [`target_name_${suffix}`]: { type: "STRING", value: targetName },
      [`at_${suffix}`]: { type: "STRING", value: row.at },
      [`format_version_${suffix}`]: { type: "INT64", value: String(row.formatVersion) },
      [`body_${suffix}`]: { type: "STRING", value: row.body },
    },
  };
}

/** The table's records in the order written; with `last`, only the newest `last`. */
export async function selectRunLog(jobs: BigQueryJobs, dataset: string, targetName: string, last?: number): Promise<RunLogRow[]> {
  const result = await jobs.query(
    `SELECT run_id, table_name, \`at\`, format_version, body FROM ${runLogTable(dataset)} WHERE target_name = @target_name ${runLogOrder("seq", { last })}`,
    { target_name: { type: "STRING", value: targetName } },
  );
  return runLogRowsFromColumns(result.rows as unknown as RunLogColumns[], { last });
}
