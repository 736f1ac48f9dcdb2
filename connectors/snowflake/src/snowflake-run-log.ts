import {
  RUN_LOG_TABLE,
  type RunLogColumns,
  type RunLogRow,
  runLogOrder,
  runLogRowsFromColumns,
  type TargetTableRef,
} from "@sqlload/core";
import { qualifiedTable } from "./snowflake-dialect.js";
import type { SnowflakeSession } from "./snowflake-session.js";

/**
 * The run log: `<schema>._sqlload_runs`, append-only, one row per commit. `target_name` is the table
 * (in this schema) a record belongs to; `pos` orders a table's records, the next number after its
 * largest, taken inside the unit's transaction (the table's run lock keeps writers of one table apart).
 */
export function runLogRef(schema: string): TargetTableRef {
  return { schema, name: RUN_LOG_TABLE };
}

export function createRunLogSql(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS ${qualifiedTable(runLogRef(schema))} ("target_name" VARCHAR, "pos" NUMBER(19,0), "run_id" VARCHAR, "table_name" VARCHAR, "at" VARCHAR, "format_version" NUMBER(10,0), "body" VARCHAR)`;
}

/** One INSERT of one record, positioned after the table's last. */
export function insertRunLogSql(schema: string): string {
  const log = qualifiedTable(runLogRef(schema));
  return `INSERT INTO ${log} ("target_name", "pos", "run_id", "table_name", "at", "format_version", "body") SELECT ?, COALESCE(MAX("pos"), 0) + 1, ?, ?, ?, ?::NUMBER(10,0), ? FROM ${log} WHERE "target_name" = ?`;
}

export function insertRunLogBinds(targetName: string, row: RunLogRow): string[] {
  return [targetName, row.runId, row.table, row.at, String(row.formatVersion), row.body, targetName];
}

/** The table's records in the order written; with `last`, only the newest `last`. */
export async function selectRunLog(session: SnowflakeSession, ref: TargetTableRef, last?: number): Promise<RunLogRow[]> {
  const rows = await session.runRetrying(
    `SELECT "run_id", "table_name", "at", "format_version", "body" FROM ${qualifiedTable(runLogRef(ref.schema))} WHERE "target_name" = ? ${runLogOrder('"pos"', { last })}`,
    [ref.name],
  );
  return runLogRowsFromColumns(rows as unknown as RunLogColumns[], { last });
}
