import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { DuckDBInstance, DuckDBListValue, LIST, VARCHAR } from "@sqlload/connector-duckdb/engine";
import { SqlloadError } from "@sqlload/core";

/** The settings the engine's statements are written for; a target running them itself sets them too. */
export const ENGINE_SETTINGS: Readonly<Record<string, string>> = { TimeZone: "UTC" };

/** An in-memory DuckDB and the folder it spills to; `close` removes both. */
export interface Engine {
  readonly instance: DuckDBInstance;
  close(): void;
}

/**
 * An in-memory DuckDB that does the file work: reading Parquet, CSV and JSON lines, and writing
 * Parquet. Extensions are never installed or auto-loaded (parquet, json and icu are built in),
 * nothing is written to `~/.duckdb`, rows that do not fit in memory spill to a temporary folder
 * of its own, and times are UTC, so a TIMESTAMPTZ never renders in the machine's zone.
 */
export async function openEngine(): Promise<Engine> {
  // DuckDB creates the folder only when it spills, so a killed run rarely leaves one behind.
  const temp = join(tmpdir(), `sqlload-files-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    const instance = await DuckDBInstance.create(":memory:", {
      extension_directory: join(tmpdir(), "sqlload-duckdb-extensions"),
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
      temp_directory: temp,
      // Two threads: the machines sqlload runs on are often shared, and file reads are I/O bound.
      threads: "2",
    });
    try {
      const connection = await instance.connect();
      await connection.run(`SET GLOBAL TimeZone = '${ENGINE_SETTINGS.TimeZone}'`);
      connection.closeSync();
    } catch (error) {
      instance.closeSync();
      throw error;
    }
    return {
      instance,
      close() {
        instance.closeSync();
        rmSync(temp, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
}

/** A list of file paths as a bound parameter: paths never go into SQL text. */
export function fileListParameter(paths: readonly string[]): { value: DuckDBValue; type: DuckDBType } {
  return { value: new DuckDBListValue(paths.map(escapeGlob)), type: LIST(VARCHAR) };
}

/**
 * DuckDB expands every path given to its readers as a glob; the characters it treats as patterns
 * are bracketed so a file named `a[1].csv` is read as itself. A path without them is opened as it
 * is. A glob also splits at `\` (on every platform), so in a path that needs brackets a
 * backslash can only be matched by `?`: such a path is loose (see `checkLoosePaths`).
 */
export function escapeGlob(path: string): string {
  if (!/[*?[]/.test(path)) return path;
  return path.replace(/[*?[\\]/g, (c) => (c === "\\" ? "?" : `[${c}]`));
}

/** Whether `escapeGlob` names `path` only loosely: a backslash beside a pattern character. */
export function isLoosePath(path: string): boolean {
  return path.includes("\\") && /[*?[]/.test(path);
}

/**
 * Throws SL304 when the escaped glob of a loose path matches more than its own file (a sibling
 * that differs where the path has a backslash), which DuckDB would read too.
 */
export async function checkLoosePaths(
  connection: DuckDBConnection,
  paths: readonly string[],
  table: string,
  shown: (path: string) => string,
): Promise<void> {
  for (const path of paths.filter(isLoosePath)) {
    const reader = await connection.runAndReadAll("SELECT count(*) FROM glob($pattern)", { pattern: escapeGlob(path) });
    if (Number(reader.getRows()[0]?.[0]) !== 1) {
      throw new SqlloadError(
        "SL304",
        `table ${table}: DuckDB cannot open ${shown(path)} alone: its path holds a backslash and one of * ? [, and another file's path differs from it only where it has a backslash`,
        { table, hint: "Rename the file or folder, or narrow the table's `glob` to leave it out." },
      );
    }
  }
}
