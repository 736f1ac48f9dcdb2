import {
  batchFromRows,
  type Column,
  type CommitUnitOptions,
  type CursorValue,
  heldBatch,
  type LogicalType,
  parseTableKey,
  type ReadRequest,
  type RecordBatch,
  type SourceConnection,
  type SourceItem,
  type SourceTableRequest,
  type TargetConnection,
  type TargetTableRef,
} from "@sqlload/core";
import { createDatabase, type PostgresInstance, startPostgres } from "@sqlload/testing";
import pg from "pg";
import connector from "../src/index.js";

export interface Server {
  readonly instance: PostgresInstance;
  /** A fresh database on the server, with a pool to set it up and check it. */
  database(name: string): Promise<{ url: string; sql: pg.Pool }>;
  stop(): Promise<void>;
}

/** One Postgres per test file (started in beforeAll), one database per test group. */
export async function startServer(): Promise<Server> {
  const instance = await startPostgres();
  const pools: pg.Pool[] = [];
  return {
    instance,
    async database(name) {
      const url = await createDatabase(instance.url, name);
      const sql = new pg.Pool({ connectionString: url, max: 4 });
      // The server's shutdown may reach a connection still closing; that is not a test failure.
      sql.on("error", () => undefined);
      pools.push(sql);
      return { url, sql };
    },
    async stop() {
      await Promise.all(pools.map((p) => p.end()));
      await instance.stop();
    },
  };
}

export async function openSource(url: string): Promise<SourceConnection> {
  return connector.source!({ options: { url }, projectDir: process.cwd(), sourceName: "app" });
}

export async function openTarget(url: string): Promise<TargetConnection> {
  return connector.target!({ options: { url }, projectDir: process.cwd(), schema: "raw" });
}

export function tableRequest(key: string, cursorColumn?: string, columns?: readonly string[]): SourceTableRequest {
  return { table: parseTableKey(key), cursorColumn, columns, options: {} };
}

export function readRequest(overrides: Partial<ReadRequest> = {}): ReadRequest {
  return { range: {}, includeNulls: true, ordered: false, signal: new AbortController().signal, ...overrides };
}

/** Everything a read yields, as a list; each batch read while it lives (see SourceItem). */
export async function collect(items: AsyncIterable<SourceItem>): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const item of items) out.push(item.kind === "batch" ? { ...item, batch: heldBatch(item.batch) } : item);
  return out;
}

export function batchesOf(items: readonly SourceItem[]): RecordBatch[] {
  return items.flatMap((i) => (i.kind === "batch" ? [i.batch] : []));
}

/** Reads a source table in full and loads it into the target through one commit unit. */
export async function copyTable(
  source: SourceConnection,
  target: TargetConnection,
  request: SourceTableRequest,
  ref: TargetTableRef,
  options: Partial<CommitUnitOptions> & { read?: Partial<ReadRequest> } = {},
): Promise<{ rows: number; items: SourceItem[]; stats?: { passedThrough: number; encoded: number } }> {
  const info = await source.describeTable(request);
  const columns = await target.ensureTable(ref, info.columns ?? [], { primaryKey: options.primaryKey });
  const reader = await source.openTable(request, info);
  const unit = await target.begin(ref, { strategy: "append", columns, ...options });
  let rows = 0;
  const items: SourceItem[] = [];
  try {
    for await (const item of reader.read(readRequest(options.read))) {
      items.push(item);
      if (item.kind !== "batch") continue;
      rows += item.batch.length;
      await unit.write(item.batch);
    }
    await unit.commit();
  } catch (error) {
    await unit.abort();
    throw error;
  } finally {
    await reader.close();
  }
  return { rows, items, stats: (unit as { stats?: { passedThrough: number; encoded: number } }).stats };
}

/** A logical type without parameters, a nullable-by-default column, and cursor values, for tests. */
export const T = (kind: Exclude<LogicalType["kind"], "decimal" | "list">): LogicalType => ({ kind }) as LogicalType;
export const col = (name: string, type: LogicalType, nullable = true): Column => ({ name, type, nullable });
export const int = (value: bigint): CursorValue => ({ kind: "integer", value });
export const ts = (value: bigint): CursorValue => ({ kind: "timestamp", value });
export const text = (value: string): CursorValue => ({ kind: "text", value });

export function batch(columns: readonly Column[], rows: readonly (Record<string, unknown> | readonly unknown[])[]): RecordBatch {
  return batchFromRows(columns, rows);
}

export async function rows<T extends pg.QueryResultRow = Record<string, unknown>>(
  sql: pg.Pool,
  text: string,
  values?: unknown[],
) {
  return (await sql.query<T>(text, values)).rows;
}
