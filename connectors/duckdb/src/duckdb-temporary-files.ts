import { readdirSync, rmdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";

/** The files DuckDB spills to: `duckdb_temp_storage_<size>-<n>.tmp`, and `duckdb_temp_block-<id>.block` of older versions. */
const SPILL_FILE = /^duckdb_temp_(?:storage_[A-Za-z0-9]+-\d+\.tmp|block-\d+\.block)$/;

/**
 * Removes what a killed process left in a database file's temporary folder. DuckDB removes its
 * spill files when it closes the database, not when it opens it, so after a crash mid-spill they
 * stayed (69 MB here after a SIGKILL with a 8 MB `memory_limit`) for every later run. Called once
 * this process holds the file's write lock, before it could spill, so no one else is using them.
 * Anything else in the folder is left alone, and so is the folder unless it ends up empty.
 */
export function removeLeftoverSpills(folder: string): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  let left = names.length;
  for (const name of names) {
    if (!SPILL_FILE.test(name)) continue;
    try {
      unlinkSync(join(folder, name));
      left--;
    } catch {}
  }
  if (left === 0) {
    try {
      rmdirSync(folder);
    } catch {}
  }
}
