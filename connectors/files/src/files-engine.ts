import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance, DuckDBListValue, type DuckDBType, type DuckDBValue, LIST, VARCHAR } from "@duckdb/node-api";

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
      await connection.run("SET GLOBAL TimeZone = 'UTC'");
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
 * are bracketed so a file named `a[1].csv` is read as itself.
 */
export function escapeGlob(path: string): string {
  return path.replace(/[*?[]/g, (c) => `[${c}]`);
}
