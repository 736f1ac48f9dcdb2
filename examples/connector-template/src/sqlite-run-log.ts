import { RUN_LOG_TABLE, type RunLogColumns, type RunLogRow, runLogOrder, runLogRowsFromColumns } from "@sqlload/core";
import { quoteIdent } from "./sqlite-dialect.js";
import type { SqliteDatabase } from "./sqlite-files.js";

const TABLE = quoteIdent(RUN_LOG_TABLE);

/**
 * The run log: `_sqlload_runs` in each schema file, one row per commit, append-only, written by
 * the unit's own transaction so a record lands exactly when its data does. `seq` (the rowid)
 * keeps the order records were written in; `target_name` is the table the record belongs to.
 */
export function ensureRunLogTable(db: SqliteDatabase): void {
  db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
    seq INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    table_name TEXT NOT NULL,
    target_name TEXT NOT NULL,
    "at" TEXT NOT NULL,
    format_version INTEGER NOT NULL,
    body TEXT NOT NULL
  )`);
}

export function insertRunLog(db: SqliteDatabase, targetName: string, row: RunLogRow): void {
  db.run(`INSERT INTO ${TABLE} (run_id, table_name, target_name, "at", format_version, body) VALUES (?, ?, ?, ?, ?, ?)`, [
    row.runId,
    row.table,
    targetName,
    row.at,
    row.formatVersion,
    row.body,
  ]);
}

/** The table's records in the order written; with `last`, only the newest `last` (what a load asks for first). */
export function selectRunLog(db: SqliteDatabase, targetName: string, last?: number): RunLogRow[] {
  if (!tableExists(db, RUN_LOG_TABLE)) return [];
  const rows = db.all(
    `SELECT run_id, table_name, "at", format_version, body FROM ${TABLE} WHERE target_name = ? ${runLogOrder("seq", { last })}`,
    [targetName],
  ) as unknown as RunLogColumns[];
  return runLogRowsFromColumns(rows, { last });
}

export function tableExists(db: SqliteDatabase, name: string): boolean {
  return db.get("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", [name]) !== null;
}
