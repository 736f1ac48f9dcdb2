import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  batchFromRows,
  type Column,
  type CommitUnitOptions,
  type CursorValue,
  encodeRunLogRecord,
  type LogicalType,
  type RecordBatch,
  type RunLogRow,
  type TargetConnection,
  type TargetTableRef,
} from "@sqlload/core";
import { type ClickHouseSession, openChdb, openServer, type Params } from "../src/clickhouse-session.js";
import type { ClickHouseTarget } from "../src/clickhouse-target.js";
import connector from "../src/index.js";

/**
 * Where the integration tests run: chdb in a temporary folder always, and a ClickHouse server as
 * well when CLICKHOUSE_URL is set (the same tests, once per engine). Each test gets a database of
 * its own, so tests share one engine (chdb binds one folder per process) without seeing each other.
 */
export interface Engine {
  readonly name: string;
  /** Opens a target connection, as a run would. */
  open(): Promise<ClickHouseTarget>;
  /** Opens a bare session (to build a target around, e.g. with injected failures). */
  session(): Promise<ClickHouseSession>;
  cleanup(): void;
}

export function engines(): Engine[] {
  const list: Engine[] = [];
  const dir = mkdtempSync(join(tmpdir(), "sqlload-clickhouse-test-"));
  list.push({
    name: "chdb",
    open: () => open({ chdb_path: "engine" }, dir),
    session: () => openChdb("engine", dir),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
  const url = process.env.CLICKHOUSE_URL;
  if (url) list.push({ name: "server", open: () => open({ url }, dir), session: () => openServer({ url }), cleanup: () => {} });
  return list;
}

async function open(options: Record<string, unknown>, projectDir: string): Promise<ClickHouseTarget> {
  if (!connector.target) throw new Error("no target");
  return (await connector.target({ options, projectDir, schema: "raw" })) as ClickHouseTarget;
}

let databases = 0;

/** A database name no other test of this process uses. */
export function freshDatabase(): string {
  return `sqlload_test_${process.pid}_${++databases}`;
}

export const t = (kind: Exclude<LogicalType["kind"], "decimal" | "list">): LogicalType => ({ kind }) as LogicalType;

export function col(name: string, type: LogicalType, nullable = true): Column {
  return { name, type, nullable };
}

export function batch(columns: readonly Column[], rows: readonly (Record<string, unknown> | readonly unknown[])[]): RecordBatch {
  return batchFromRows(columns, rows);
}

export async function query<T = Record<string, unknown>>(target: ClickHouseTarget, sql: string, params?: Params): Promise<T[]> {
  return target.session.query<T>(sql, params);
}

/** The auxiliary tables (`_sqlload_…` but the run log) of a database. */
export async function auxTables(target: ClickHouseTarget, database: string): Promise<string[]> {
  const rows = await query<{ name: string }>(
    target,
    "SELECT name FROM system.tables WHERE database = {db:String} AND startsWith(name, '_sqlload_') AND name != '_sqlload_runs' ORDER BY name",
    { db: database },
  );
  return rows.map((r) => r.name);
}

/** Writes batches through one unit, commits it, and publishes, as the runner does for one unit. */
export async function load(
  target: TargetConnection,
  ref: TargetTableRef,
  columns: readonly Column[],
  batches: readonly RecordBatch[],
  options: Partial<CommitUnitOptions> = {},
): Promise<void> {
  const ensured = await target.ensureTable(ref, columns, { primaryKey: options.primaryKey });
  const unit = await target.begin(ref, { strategy: "append", columns: ensured, ...options });
  try {
    for (const b of batches) await unit.write(b);
    await unit.commit();
  } catch (error) {
    await unit.abort();
    throw error;
  }
  await target.publish?.(ref);
}

/**
 * A session that fails the first statement matching `pattern` (before running it, or after it
 * ran with `after`), as a crash at that instant would leave things; every other statement runs.
 */
export function failing(
  session: ClickHouseSession,
  pattern: RegExp,
  when: "before" | "after" = "before",
): ClickHouseSession & { fired: boolean } {
  const state = { fired: false };
  const trip = async (sql: string, run: () => Promise<void>) => {
    if (state.fired || !pattern.test(sql)) return run();
    state.fired = true;
    if (when === "after") await run();
    throw new Error(`injected failure ${when} ${sql.slice(0, 60)}`);
  };
  return Object.assign(Object.create(session) as ClickHouseSession, {
    get fired() {
      return state.fired;
    },
    command: (sql: string, params?: Params) => trip(sql, () => session.command(sql, params)),
    insertJSON: (db: string, table: string, rows: readonly Record<string, unknown>[]) =>
      trip(`INSERT INTO ${table}`, () => session.insertJSON(db, table, rows)),
    release: () => Promise.resolve(),
  });
}

/** The table the staged-commit tests load: an id, an integer cursor `at`, a text `v`. */
export const windowColumns = [col("id", t("int64"), false), col("at", t("int64")), col("v", t("text"))];
export const windowCursor = { column: "at", kind: "integer" as const };
export const at = (v: number): CursorValue => ({ kind: "integer", value: BigInt(v) });

/** Rows of ids and cursors `from` … `to - 1`, each with text `v`. */
export const rowsAt = (from: number, to: number, v: string) =>
  Array.from({ length: to - from }, (_, k) => ({ id: BigInt(from + k), at: BigInt(from + k), v }));

export const logRow = (table: string, rows: number, windowEnd: number | null = null): RunLogRow =>
  encodeRunLogRecord({
    runId: "run",
    table,
    at: "2026-10-12T16:00:00.000Z",
    event: "run",
    cursor: null,
    rows,
    windowEnd: windowEnd === null ? null : at(windowEnd),
  });

/** One delete_insert window as the runner commits it: delete the range, write, log, commit (no publish). */
export async function deleteInsertWindow(
  target: TargetConnection,
  ref: TargetTableRef,
  from: number,
  to: number,
  v: string,
  columns: readonly Column[] = windowColumns,
): Promise<void> {
  const unit = await target.begin(ref, { strategy: "delete_insert", columns, cursor: windowCursor });
  await unit.deleteRange({ from: at(from), to: at(to) });
  await unit.write(batch(columns, rowsAt(from, to, v)));
  await unit.appendRunLog(logRow(`${ref.schema}.${ref.name}`, to - from, to));
  await unit.commit();
}
