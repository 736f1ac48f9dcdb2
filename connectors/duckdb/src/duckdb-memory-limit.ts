import { SqlloadError } from "@sqlload/core";

/**
 * DuckDB's `memory_limit` for the target's database unless the target sets `memory_limit`.
 *
 * DuckDB keeps every block it writes in its buffer pool until the pool reaches `memory_limit`
 * (80% of the machine's memory by default): a loader never reads those blocks again, yet a
 * transaction appending 1.2M rows of 1 KB held them all (peak RSS 1,196 MB, growing with the
 * rows; 674 MB with 256 MB, flat from 600,000 rows on). Blocks already written are dropped for
 * free when the pool is full; what does not fit and is not written yet (a row group being built,
 * a sort) goes to DuckDB's temporary folder next to the file, so a low limit costs speed, not
 * correctness.
 */
export const DEFAULT_MEMORY_LIMIT = "256MB";

/** What DuckDB reads as a size (`"256MB"`, `"1.5GB"`, `"512 MiB"`), or `"-1"`: DuckDB's own default. */
const SIZE = /^(?:-1|(?:\d+(?:\.\d+)?) ?(?:b|bytes|kb|mb|gb|tb|kib|mib|gib|tib))$/i;

/** The target's `memory_limit` setting as DuckDB takes it: the default when unset, refused when DuckDB would not read it. */
export function memoryLimit(value: unknown): string {
  if (value === undefined) return DEFAULT_MEMORY_LIMIT;
  if (typeof value !== "string") throw new SqlloadError("SL103", "the DuckDB target's `memory_limit` must be a string");
  const size = value.trim();
  if (!SIZE.test(size) || /^0+(?:\.0+)? ?[a-z]/i.test(size)) {
    throw new SqlloadError("SL107", `the DuckDB target's \`memory_limit\` ${JSON.stringify(value)} is not a size`, {
      hint: 'Give a size with a unit ("256MB", "2GB"), or "-1" for DuckDB\'s own default (80% of the memory).',
    });
  }
  return size;
}
