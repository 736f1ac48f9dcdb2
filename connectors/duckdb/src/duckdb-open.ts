import { type ConnectorContext, SqlloadError } from "@sqlload/core";
import { bindings } from "./duckdb-client.js";
import { type DuckDBDatabase, openDatabase } from "./duckdb-database.js";
import { type TargetFileSettings, targetFileSettings } from "./duckdb-instance-options.js";
import { discardInstance, type InstanceStart } from "./duckdb-instance-start.js";
import { sourceMemoryLimit } from "./duckdb-memory-settings.js";
import { DuckDBSource } from "./duckdb-source.js";
import { DuckDBTarget } from "./duckdb-target.js";
import { targetPath } from "./duckdb-target-path.js";

// Everything that loads the DuckDB client starts here: the connector imports this file only when
// it opens a database, so a command that never opens one never loads DuckDB's native library.

/**
 * Returns once the file has begun opening: the target's `connect()` waits for the rest. `started`:
 * the in-memory instance the connector's entry began for the file (`startTargetInstance`), used
 * when it was begun as this open would begin it, closed otherwise.
 */
export async function openTarget(context: ConnectorContext, started?: InstanceStart): Promise<DuckDBTarget> {
  let path: string;
  let settings: TargetFileSettings;
  try {
    path = targetPath(context.options);
    settings = targetFileSettings(context.options);
  } catch (error) {
    if (started) discardInstance(bindings, started);
    throw error;
  }
  const native = context.options.native_file_reads !== false;
  return DuckDBTarget.opening(openDatabase(path, context.projectDir, "read_write", "target", settings, started), native);
}

export async function openSource(context: ConnectorContext): Promise<DuckDBSource> {
  const path = context.options.path;
  if (typeof path !== "string") {
    const name = context.sourceName ? `source ${context.sourceName}` : "a DuckDB source";
    throw new SqlloadError("SL105", `${name} needs \`path\`, the DuckDB file to read`);
  }
  const settings = { memoryLimit: sourceMemoryLimit(context.options) };
  return withDatabase(await openDatabase(path, context.projectDir, "read_only", "source", settings), DuckDBSource.open);
}

async function withDatabase<T>(db: DuckDBDatabase, open: (db: DuckDBDatabase) => Promise<T>): Promise<T> {
  try {
    return await open(db);
  } catch (error) {
    await db.release();
    throw error;
  }
}
