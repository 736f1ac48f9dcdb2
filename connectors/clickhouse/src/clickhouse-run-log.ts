import { RUN_LOG_TABLE, type RunLogColumns, type RunLogRow, runLogOrder, runLogRowsFromColumns } from "@sqlload/core";
import { qualifiedName } from "./clickhouse-dialect.js";
import type { ClickHouseSession } from "./clickhouse-session.js";
import { clickhouseErrorKind } from "./errors.js";

/**
 * The run log: `<database>._sqlload_runs`, one row per commit, append-only. `target_name` is the
 * table (in this database) a record belongs to and what reads filter on; `table_name` keeps the
 * record's own `table` text. `pos` orders a table's records: the next numbers after the largest,
 * taken while the publish holds the table's lock. `publish_id` names the publish that wrote a
 * record, so a publish finished after a crash never writes its records twice.
 */
const COLUMNS = `target_name String, pos UInt64, publish_id String, run_id String, table_name String, at String,
  format_version UInt32, body String, written_at DateTime64(6, 'UTC') DEFAULT now64(6)`;

export async function ensureRunLogTable(session: ClickHouseSession, database: string): Promise<void> {
  await session.command(
    `CREATE TABLE IF NOT EXISTS ${qualifiedName(database, RUN_LOG_TABLE)} (${COLUMNS}) ENGINE = MergeTree ORDER BY (target_name, pos)`,
  );
}

/**
 * A read of the run log, with a log (or database) not made yet read as `none`: a statement fewer
 * than asking the catalog first, on every run.
 */
async function readingLog<T>(read: () => Promise<T>, none: T): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (clickhouseErrorKind(error) === "missing_table") return none;
    throw error;
  }
}

/** Whether records of this publish are in the log already. */
export async function hasPublish(
  session: ClickHouseSession,
  database: string,
  targetName: string,
  publishId: string,
): Promise<boolean> {
  const rows = await readingLog(
    () =>
      session.query<{ n: string }>(
        `SELECT count() AS n FROM ${qualifiedName(database, RUN_LOG_TABLE)} WHERE target_name = {t:String} AND publish_id = {p:String}`,
        { t: targetName, p: publishId },
      ),
    [],
  );
  return Number(rows[0]?.n ?? 0) > 0;
}

/** Appends a publish's records in one INSERT (one block: all of them land or none). */
export async function insertRunLog(
  session: ClickHouseSession,
  database: string,
  targetName: string,
  publishId: string,
  rows: readonly RunLogRow[],
): Promise<void> {
  if (rows.length === 0) return;
  await ensureRunLogTable(session, database);
  const last = await session.query<{ pos: string }>(
    `SELECT max(pos) AS pos FROM ${qualifiedName(database, RUN_LOG_TABLE)} WHERE target_name = {t:String}`,
    { t: targetName },
  );
  const base = BigInt(last[0]?.pos ?? "0");
  await session.insertJSON(
    database,
    RUN_LOG_TABLE,
    rows.map((row, i) => ({
      target_name: targetName,
      pos: (base + BigInt(i + 1)).toString(),
      publish_id: publishId,
      run_id: row.runId,
      table_name: row.table,
      at: row.at,
      format_version: row.formatVersion,
      body: row.body,
    })),
  );
}

/** The table's committed records in the order written; with `last`, only the newest `last`. */
export async function selectRunLog(
  session: ClickHouseSession,
  database: string,
  targetName: string,
  last?: number,
): Promise<RunLogRow[]> {
  const rows = await readingLog(
    () =>
      session.query<RunLogColumns>(
        `SELECT run_id, table_name, at, format_version, body FROM ${qualifiedName(database, RUN_LOG_TABLE)} WHERE target_name = {t:String} ${runLogOrder("pos", { last })}`,
        { t: targetName },
      ),
    [],
  );
  return runLogRowsFromColumns(rows, { last });
}
