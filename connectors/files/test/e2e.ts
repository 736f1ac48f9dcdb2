import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSqlload, startSqlload } from "@sqlload/testing";
import { afterAll } from "vitest";
import { duck } from "./harness.js";

export { SQLLOAD_CLI as CLI } from "@sqlload/testing";

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts `sqlload ARGS` in `cwd`, as a user's shell would (no pnpm NODE_PATH). */
export function startCli(args: readonly string[], cwd: string, env: Record<string, string> = {}): ChildProcess {
  return startSqlload(args, { cwd, env });
}

export async function sqlload(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<CliResult> {
  const result = await runSqlload(args, { cwd, env });
  return { code: result.code ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Runs and expects exit code 0. */
export async function ok(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<CliResult> {
  const result = await sqlload(args, cwd, env);
  if (result.code !== 0) throw new Error(`sqlload ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result;
}

const projects: string[] = [];

/**
 * `SQLLOAD_TEST_ROW_PATH=1` runs these tests with the DuckDB target's native file reads off, so
 * every files → DuckDB case also passes on the row path (`native_file_reads = false`); a project
 * that sets `native_file_reads` itself keeps it.
 */
function withRowPath(toml: string): string {
  if (process.env.SQLLOAD_TEST_ROW_PATH !== "1") return toml;
  const block = /^\[target\]\n((?:(?!\[).*\n)*)/m.exec(toml);
  if (!block || /^native_file_reads\s*=/m.test(block[1] ?? "")) return toml;
  const connector = /^connector\s*=\s*"([^"]*)"/m.exec(block[1] ?? "")?.[1];
  if (connector !== undefined && connector !== "duckdb") return toml;
  return toml.replace(/^\[target\]\n/m, "[target]\nnative_file_reads = false\n");
}

/** A temporary project folder holding `sqlload.toml`; removed after the test file. */
export function project(toml: string): string {
  const dir = mkdtempSync(join(tmpdir(), "sqlload-files-e2e-"));
  writeFileSync(join(dir, "sqlload.toml"), withRowPath(toml));
  projects.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of projects.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Rows of a query on a DuckDB file (opened read-only, so a CLI run may use it next). */
export async function queryDuckDB(file: string, sql: string): Promise<Record<string, unknown>[]> {
  return duck(`ATTACH '${file}' AS w (READ_ONLY)`, "USE w", sql);
}
