import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { runSqlload } from "@sqlload/testing";

export { type CliResult, SQLLOAD_CLI as CLI } from "@sqlload/testing";

/** Runs the built `sqlload` binary as a user would; the exit code is -1 when a signal ended it. */
export async function sqlload(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const result = await runSqlload(args, options);
  return { code: result.code ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export function tempDir(prefix = "sqlload-e2e-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Runs a query on a DuckDB file and returns rows as JSON-safe objects. */
export async function queryDuckDB(file: string, sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(file);
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(sql);
    const rows = reader.getRowObjectsJson() as Record<string, unknown>[];
    connection.closeSync();
    return rows;
  } finally {
    instance.closeSync();
  }
}
