import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import {
  batchFromRows,
  batchToRows,
  type Column,
  type CommitUnitOptions,
  type CursorRange,
  type LogicalType,
  type RecordBatch,
  type SourceConnection,
  type SourceItem,
  type SourceTableInfo,
  type SourceTableReader,
  type SourceTableRequest,
  type TargetConnection,
  type TargetTableRef,
} from "@sqlload/core";
import connector from "../src/index.js";

export function tempDir(prefix = "sqlload-files-test-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function writeText(file: string, text: string | Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** Overwrites all of a Parquet file's data pages, leaving its footer: any scan of it fails, its metadata reads. */
export function corruptData(file: string): void {
  const bytes = readFileSync(file);
  // The file ends with the footer, its 4-byte length, and "PAR1"; it starts with "PAR1".
  const footerStart = bytes.length - 8 - bytes.readUInt32LE(bytes.length - 8);
  bytes.fill(0xff, 4, footerStart);
  writeFileSync(file, bytes);
}

/** Runs SQL on a private in-memory DuckDB: how tests make Parquet fixtures (`COPY (…) TO '…'`). */
export async function duck(...statements: string[]): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(":memory:", {
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
  });
  try {
    const connection = await instance.connect();
    let rows: Record<string, unknown>[] = [];
    for (const sql of statements) rows = (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
    connection.closeSync();
    return rows;
  } finally {
    instance.closeSync();
  }
}

/** `COPY (sql) TO file (FORMAT parquet)`, creating the folder. */
export async function parquet(file: string, sql: string): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  await duck(`COPY (${sql}) TO '${file.replaceAll("'", "''")}' (FORMAT parquet)`);
}

export async function openSource(projectDir: string, path = "data"): Promise<SourceConnection> {
  return connector.source!({ options: { path }, projectDir, sourceName: "lake" });
}

export async function openTarget(projectDir: string, options: Record<string, unknown> = {}): Promise<TargetConnection> {
  return connector.target!({ options: { path: "lake", ...options }, projectDir, schema: "raw" });
}

export function request(
  name: string,
  options: Record<string, unknown>,
  cursorColumn?: string,
  columns?: string[],
): SourceTableRequest {
  return { table: { name, key: name }, cursorColumn, columns, options };
}

export interface ReadResult {
  readonly rows: Record<string, unknown>[];
  readonly items: SourceItem[];
  /** Rows per stretch between commit points. */
  readonly stretches: number[];
}

const signal = new AbortController().signal;

export async function readAll(
  reader: SourceTableReader,
  range: CursorRange = {},
  options: { ordered?: boolean; includeNulls?: boolean } = {},
): Promise<ReadResult> {
  const rows: Record<string, unknown>[] = [];
  const items: SourceItem[] = [];
  const stretches: number[] = [0];
  for await (const item of reader.read({
    range,
    includeNulls: options.includeNulls ?? true,
    ordered: options.ordered ?? false,
    signal,
  })) {
    items.push(item);
    if (item.kind === "batch") {
      rows.push(...batchToRows(item.batch));
      stretches[stretches.length - 1]! += item.batch.length;
    } else if (item.kind === "commit-point") stretches.push(0);
  }
  return { rows, items, stretches };
}

/** Describes, opens, reads everything and closes. */
export async function readTable(
  source: SourceConnection,
  req: SourceTableRequest,
  range: CursorRange = {},
  options: { ordered?: boolean; includeNulls?: boolean } = {},
): Promise<ReadResult & { info: SourceTableInfo }> {
  const info = await source.describeTable(req);
  const reader = await source.openTable(req, info);
  try {
    return { ...(await readAll(reader, range, options)), info };
  } finally {
    await reader.close();
  }
}

export const t = (kind: Exclude<LogicalType["kind"], "decimal" | "list">): LogicalType => ({ kind }) as LogicalType;

export function col(name: string, type: LogicalType, nullable = true): Column {
  return { name, type, nullable };
}

export function batch(columns: readonly Column[], rows: readonly (Record<string, unknown> | readonly unknown[])[]): RecordBatch {
  return batchFromRows(columns, rows);
}

/** Ensures the table, writes batches through one unit (after an optional range delete) and commits. */
export async function load(
  target: TargetConnection,
  ref: TargetTableRef,
  columns: readonly Column[],
  batches: readonly RecordBatch[],
  options: Partial<CommitUnitOptions> & { deleteRange?: CursorRange } = {},
): Promise<void> {
  const replace = options.strategy === "replace";
  const ensured = replace ? columns : await target.ensureTable(ref, columns, { primaryKey: options.primaryKey });
  const unit = await target.begin(ref, { strategy: "append", columns: ensured, ...options });
  try {
    if (options.deleteRange) await unit.deleteRange(options.deleteRange);
    for (const b of batches) await unit.write(b);
    await unit.commit();
  } catch (error) {
    await unit.abort();
    throw error;
  }
}

/** Every live row of a files-target table, read the way its docs tell readers to: the manifest's list. */
export async function targetRows(root: string, ref: TargetTableRef, orderBy = "1"): Promise<Record<string, unknown>[]> {
  const dir = join(root, ref.schema, ref.name);
  const manifest = await duck(
    `SELECT list('${dir}/' || f.path) AS files FROM (SELECT unnest(files) AS f FROM read_json('${dir}/manifest.json'))`,
  );
  const files = manifest[0]?.files as string[] | null;
  if (!files || files.length === 0) return [];
  const list = files.map((f) => `'${f.replaceAll("'", "''")}'`).join(", ");
  return duck(`SELECT * FROM read_parquet([${list}], union_by_name = true, hive_partitioning = false) ORDER BY ${orderBy}`);
}
