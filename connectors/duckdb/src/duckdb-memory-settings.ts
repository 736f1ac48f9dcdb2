import { formatCount, SqlloadError } from "@sqlload/core";

/** How the target's database is opened to bound the memory a load takes (the target's `memory_limit` and `row_group_size`). */
export interface MemorySettings {
  /** DuckDB's `memory_limit`, as DuckDB reads a size: throughout, or while a unit queries (see `appendingLimit`). */
  readonly memoryLimit: string;
  /**
   * DuckDB's `memory_limit` while every open unit only appends (see duckdb-memory-limit.ts);
   * absent when the target sets `memory_limit`, which then holds throughout.
   */
  readonly appendingLimit?: string | undefined;
  /** Rows per row group of what this process writes. */
  readonly rowGroupSize: number;
}

/**
 * DuckDB's `memory_limit` for the target's database while a unit queries what it writes, unless
 * the target sets `memory_limit`.
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

/**
 * DuckDB's `memory_limit` while the units open on a file only append, unless the target sets
 * `memory_limit`. An append reads nothing back: the buffer pool holds the row group being built
 * (spilled to the temporary folder past the limit) and blocks already written, which it keeps
 * until the pool is full though a loader never reads them. 200,000 rows of 1 KB peaked at 263–279
 * MB with 32 MB against 303–318 MB with 64 MB (32,768-row groups; bench/README.md), at the same
 * speed. A unit that queries what it writes (a merge joins each batch against the table and the
 * rows its transaction added) spilled those rows and re-read them for every batch: 2M rows merged in 11.3 s at 32 MB against 4.8 s at 256 MB; it gets
 * `DEFAULT_MEMORY_LIMIT` while it is open.
 */
export const APPENDING_MEMORY_LIMIT = "32MB";

/** DuckDB's own row group size, and the largest the file formats sqlload writes take. */
export const DUCKDB_ROW_GROUP_SIZE = 122_880;

/**
 * Rows per row group unless the target sets `row_group_size`. DuckDB builds a row group in memory,
 * outside its buffer pool, and compresses it there, whatever the rows' width: 200,000 rows of 1 KB
 * peaked at 457 MB with DuckDB's own 122,880 rows even under a 32 MB pool, 299–337 MB with 32,768
 * and 257–272 MB with 16,384 (bench/README.md). Narrow rows load as fast, and scans of them run as
 * fast, at a cost in the file's size: 5M rows of the benchmark's `orders` took 22.8 MB against
 * 21.0 MB. A row group of 16,384 rows still holds 8 of DuckDB's vectors for its scans to skip by.
 */
export const DEFAULT_ROW_GROUP_SIZE = 16_384;
/** DuckDB's vector size: a row group holds a whole number of them. */
const VECTOR_SIZE = 2048;

/** What DuckDB reads as a size (`"256MB"`, `"1.5GB"`, `"512 MiB"`), or `"-1"`: DuckDB's own default. */
const SIZE = /^(?:-1|(?:\d+(?:\.\d+)?) ?(?:b|bytes|kb|mb|gb|tb|kib|mib|gib|tib))$/i;

/** The target's settings as DuckDB takes them: defaults for what is unset, refused when DuckDB would not take them. */
export function memorySettings(options: { readonly memory_limit?: unknown; readonly row_group_size?: unknown }): MemorySettings {
  const rows = rowGroupSize(options.row_group_size);
  if (options.memory_limit !== undefined) return { memoryLimit: memoryLimit(options.memory_limit), rowGroupSize: rows };
  return { memoryLimit: DEFAULT_MEMORY_LIMIT, appendingLimit: APPENDING_MEMORY_LIMIT, rowGroupSize: rows };
}

function memoryLimit(value: unknown): string {
  if (typeof value !== "string") throw new SqlloadError("SL103", "the DuckDB target's `memory_limit` must be a string");
  const size = value.trim();
  if (!SIZE.test(size) || /^0+(?:\.0+)? ?[a-z]/i.test(size)) {
    throw new SqlloadError("SL107", `the DuckDB target's \`memory_limit\` ${JSON.stringify(value)} is not a size`, {
      hint: 'Give a size with a unit ("256MB", "2GB"), or "-1" for DuckDB\'s own default (80% of the memory).',
    });
  }
  return size;
}

/** DuckDB sets the size per attached database, not per table. */
function rowGroupSize(value: unknown): number {
  if (value === undefined) return DEFAULT_ROW_GROUP_SIZE;
  if (typeof value !== "number") throw new SqlloadError("SL103", "the DuckDB target's `row_group_size` must be an integer");
  if (!Number.isInteger(value) || value < VECTOR_SIZE || value > DUCKDB_ROW_GROUP_SIZE || value % VECTOR_SIZE !== 0) {
    throw new SqlloadError("SL107", `the DuckDB target's \`row_group_size\` ${value} is not a row group size DuckDB takes`, {
      hint: `Give a multiple of ${VECTOR_SIZE} from ${VECTOR_SIZE} to ${formatCount(DUCKDB_ROW_GROUP_SIZE)} (DuckDB's own), such as 16384.`,
    });
  }
  return value;
}
