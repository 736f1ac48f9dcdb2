import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConnectorContext } from "@sqlload/core";
import { duckdbDefaultLimit } from "./duckdb-memory-limit.js";
import { type MemorySettings, memorySettings } from "./duckdb-memory-settings.js";
import { storageVersion } from "./duckdb-storage-version.js";

// The options a DuckDB instance is created with. Nothing here loads the DuckDB client: the
// connector's entry computes a target's options before the client has loaded (duckdb-instance-start.ts).

/**
 * Extensions are never installed or loaded behind the user's back (the ones sqlload needs, json
 * and icu, are built in), and the extension folder points away from `~/.duckdb`, so opening a
 * database writes nothing outside the project.
 *
 * `write_buffer_row_group_count`: a bulk append holds this many row groups (122,880 rows each,
 * whatever their width) in memory before writing them out together; DuckDB's default of 5 held
 * about 600 MB for rows of 1 KB (peak RSS 1,026 MB against 605 MB with 1, for 600,000 such rows
 * appended in one transaction). One row group at a time bounds memory by a row group's bytes.
 */
export const INSTANCE_OPTIONS: Readonly<Record<string, string>> = {
  extension_directory: join(tmpdir(), "sqlload-duckdb-extensions"),
  autoinstall_known_extensions: "false",
  autoload_known_extensions: "false",
  write_buffer_row_group_count: "1",
};

/** How a target's file is opened: what bounds its memory, and the storage format of a file it creates. */
export interface TargetFileSettings extends MemorySettings {
  /** DuckDB's `storage_compatibility_version`; absent: DuckDB's own. */
  readonly storageVersion?: string | undefined;
}

/** The target's settings as it gives them (`memory_limit`, `row_group_size`, `storage_version`), refused when DuckDB would not take them. */
export function targetFileSettings(options: ConnectorContext["options"]): TargetFileSettings {
  return { ...memorySettings(options), storageVersion: storageVersion(options.storage_version) };
}

/** A target file's options before it is attached: its memory limit, and the format of a file it creates. */
export function targetFileOptions(settings: TargetFileSettings): Record<string, string> {
  const options: Record<string, string> = { ...INSTANCE_OPTIONS, memory_limit: settings.memoryLimit };
  // DuckDB applies it to files it creates, the attached one too, and leaves an existing file's format as it is.
  if (settings.storageVersion) options.storage_compatibility_version = settings.storageVersion;
  return options;
}

/**
 * Whether the file is attached to recover a write-ahead log (see duckdb-database.ts, `attach`): a
 * log is there and the limit may be raised.
 */
export function recoversLog(file: string, raisable: boolean): boolean {
  return raisable && existsSync(`${file}.wal`);
}

/**
 * The options of the in-memory instance `file` is attached to: the file's own, with the temporary
 * folder DuckDB would give the file opened directly, and DuckDB's own default limit while a log is
 * recovered.
 */
export function attachedInstanceOptions(
  options: Readonly<Record<string, string>>,
  file: string,
  recover: boolean,
): Record<string, string> {
  return {
    ...options,
    temp_directory: `${file}.tmp`,
    ...(recover ? { memory_limit: `${Math.floor(duckdbDefaultLimit() / 1e6)}MB` } : {}),
  };
}
