import { SqlloadError } from "@sqlload/core";

/**
 * The storage format of a DuckDB file the target creates (DuckDB's `storage_compatibility_version`),
 * when the target sets `storage_version`; absent, DuckDB's own default, which DuckDB 0.10 and later
 * read. An existing file keeps the format it was created in.
 *
 * Not made the default, though DuckDB 1.3's format takes less memory for wide distinct text (its
 * DICT_FSST compression spares the copy plain dictionary compression keeps while it decides: 200,000
 * rows of 1 KB peaked at 466 MB instead of 643 MB): it wrote 130,000 rows of 10 KB of distinct text
 * ten times slower (68 s against 6 s), needs a 3 MB allocation per text segment that a 4 MB
 * `memory_limit` cannot give, and older DuckDBs refuse its files (bench/README.md).
 */
export const DUCKDB_DEFAULT_STORAGE_VERSION = "v0.10.2";

/** A DuckDB release (`v1.3.0`) or `latest`: the shapes DuckDB reads as a storage version. */
const VERSION = /^(?:v\d+\.\d+\.\d+|latest)$/;

export function storageVersion(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new SqlloadError("SL103", "the DuckDB target's `storage_version` must be a string");
  if (!VERSION.test(value.trim())) throw notAVersion(value);
  return value.trim();
}

/** Also what the target reports when DuckDB itself does not know the version (one later than its own). */
export function notAVersion(value: string, detail?: string): SqlloadError {
  const what = `the DuckDB target's \`storage_version\` ${JSON.stringify(value)} is not a storage version DuckDB writes`;
  return new SqlloadError("SL107", detail ? `${what}: ${detail}` : what, {
    hint: `Give a DuckDB release from v0.10.0 up to this DuckDB's own, such as "v0.10.0" for a file older DuckDBs can read, or "latest" (default DuckDB's own, "${DUCKDB_DEFAULT_STORAGE_VERSION}").`,
  });
}
