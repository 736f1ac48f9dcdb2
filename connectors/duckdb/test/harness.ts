import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  batchFromRows,
  type Column,
  type CommitUnitOptions,
  type LogicalType,
  type RecordBatch,
  type SourceConnection,
  type TargetConnection,
  type TargetTableRef,
} from "@sqlload/core";
import { afterAll, beforeAll } from "vitest";
import { openDatabase } from "../src/duckdb-database.js";
import connector from "../src/index.js";

/** A fresh project folder per test file; everything the tests open is closed and removed after. */
export function tempProject(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "sqlload-duckdb-test-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A project folder for the test file that calls it (made before its tests, removed after), and
 * its DuckDB files opened as a target or read, by path.
 */
export function projectFiles(): {
  dir: () => string;
  openTarget: (path: string, options?: Record<string, unknown>) => Promise<TargetConnection>;
  query: (path: string, sql: string) => Promise<unknown[][]>;
} {
  let project: ReturnType<typeof tempProject> | undefined;
  beforeAll(() => {
    project = tempProject();
  });
  afterAll(() => project?.cleanup());
  const dir = (): string => {
    if (!project) throw new Error("projectFiles() is used within tests only");
    return project.dir;
  };
  return {
    dir,
    openTarget: (path, options = {}) => openTarget(dir(), path, options),
    /** Through the instance this process has open on the file, if any (openDatabase shares it), else under DuckDB's own limit. */
    async query(path, sql) {
      const db = await openDatabase(path, dir(), "read_only", "source", { memoryLimit: "-1" });
      try {
        return (await (await db.connect()).runAndReadAll(sql)).getRows();
      } finally {
        await db.release();
      }
    },
  };
}

export async function openTarget(
  projectDir: string,
  path = "warehouse.duckdb",
  options: Record<string, unknown> = {},
): Promise<TargetConnection> {
  if (!connector.target) throw new Error("no target");
  // Reached as core reaches it (ProjectSession): the file's open fails here, not at its first use.
  const target = await connector.target({ options: { path, ...options }, projectDir, schema: "raw" });
  try {
    await target.connect?.();
  } catch (error) {
    await target.close();
    throw error;
  }
  return target;
}

export async function openSource(projectDir: string, path = "warehouse.duckdb"): Promise<SourceConnection> {
  if (!connector.source) throw new Error("no source");
  return connector.source({ options: { path }, projectDir, sourceName: "src" });
}

export const t = (kind: Exclude<LogicalType["kind"], "decimal" | "list">): LogicalType => ({ kind }) as LogicalType;

export function col(name: string, type: LogicalType, nullable = true): Column {
  return { name, type, nullable };
}

export function batch(columns: readonly Column[], rows: readonly (Record<string, unknown> | readonly unknown[])[]): RecordBatch {
  return batchFromRows(columns, rows);
}

/** Writes batches through one unit and commits it. */
export async function load(
  target: TargetConnection,
  ref: TargetTableRef,
  columns: readonly Column[],
  batches: Iterable<RecordBatch>,
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
}
