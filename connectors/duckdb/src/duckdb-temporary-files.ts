import { readdirSync, rmdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";

/** The files DuckDB spills to: `duckdb_temp_storage_<size>-<n>.tmp`, and `duckdb_temp_block-<id>.block` of older versions. */
const SPILL_FILE = /^duckdb_temp_(?:storage_[A-Za-z0-9]+-\d+\.tmp|block-\d+\.block)$/;

/**
 * The spill files a killed process left in a database file's temporary folder, listed before this
 * process opens the file. DuckDB removes its spill files when it closes the database, not when it
 * opens it, so after a crash mid-spill they stayed (69 MB here after a SIGKILL with a 8 MB
 * `memory_limit`) for every later run. They are listed before the open because opening replays the
 * file's write-ahead log, which may spill files of this process's own into the folder.
 */
export function leftoverSpills(folder: string): string[] {
  try {
    return readdirSync(folder).filter((name) => SPILL_FILE.test(name));
  } catch {
    return [];
  }
}

/**
 * Removes `names` (from `leftoverSpills`) once this process holds the file's write lock, so no one
 * else is using them. Anything else in the folder is left alone, and so is the folder unless it
 * ends up empty.
 */
export function removeLeftoverSpills(folder: string, names: readonly string[]): void {
  for (const name of names) {
    try {
      unlinkSync(join(folder, name));
    } catch {}
  }
  try {
    if (readdirSync(folder).length === 0) rmdirSync(folder);
  } catch {}
}
