import { formatCount, SqlloadError } from "@sqlload/core";

/** How the target's database is opened to bound the memory a load takes (the target's `memory_limit` and `row_group_size`). */
export interface MemorySettings {
  /** DuckDB's `memory_limit`, as DuckDB reads a size. */
  readonly memoryLimit: string;
  /** Rows per row group of what this process writes. */
  readonly rowGroupSize: number;
  /**
   * True when `memory_limit` is sqlload's default, which is raised for tables of long text or blobs
   * (duckdb-write-memory.ts); a limit the target sets is kept as it is.
   */
  readonly raisable: boolean;
}

/**
 * DuckDB's `memory_limit` for the target's database unless the target sets `memory_limit`.
 *
 * DuckDB keeps every block it writes in its buffer pool until the pool reaches `memory_limit`
 * (80% of the machine's memory by default): a loader never reads those blocks again, yet a
 * transaction appending 1.2M rows of 1 KB held them all (peak RSS 1,196 MB, growing with the
 * rows; 674 MB with 256 MB, flat from 600,000 rows on). Blocks already written are dropped for
 * free when the pool is full; most of what is not written yet (a row group being built, a sort)
 * goes to DuckDB's temporary folder next to the file. Not all, which is why the limit is not lower:
 * until the transaction commits, DuckDB keeps pinned the block each column is being filled in and
 * text it has not written yet, in amounts that depend on the rows' shape. At 32 MB, 121 `bigint`
 * columns failed to append, and 2,000 rows of four 4,000-character texts failed to commit; both
 * load at 256 MB (bench/README.md, 2026-12-06). A limit that followed each unit's need was tried
 * and reverted: no rule of ours predicted DuckDB's need closely enough.
 */
export const DEFAULT_MEMORY_LIMIT_BYTES = 256e6;
/** DEFAULT_MEMORY_LIMIT_BYTES as DuckDB reads a size (MB: 10^6 bytes). */
export const DEFAULT_MEMORY_LIMIT = `${DEFAULT_MEMORY_LIMIT_BYTES / 1e6}MB`;

/** DuckDB's own row group size, and the largest the file formats sqlload writes take. */
export const DUCKDB_ROW_GROUP_SIZE = 122_880;

/**
 * Rows per row group unless the target sets `row_group_size`. DuckDB builds a row group in memory,
 * outside its buffer pool, and compresses it there, whatever the rows' width: 200,000 rows of 1 KB
 * peaked at 579–667 MB with DuckDB's own 122,880 rows and 401–425 MB with 32,768 (256 MB pool), and
 * at 447–457 MB with 122,880 rows even under a 32 MB pool (bench/README.md). Narrow rows cost the
 * same CPU at 32,768 as at 122,880 (5M rows of the benchmark's `orders`, alternating: 6.13–6.66 s against 6.54–6.74 s)
 * and 10–20% more at 16,384, so 16,384 is left to tables of wide rows (docs/connectors/duckdb.md).
 */
export const DEFAULT_ROW_GROUP_SIZE = 32_768;
/**
 * A DuckDB source's file is opened under this memory_limit, and each read raises it to what the
 * reads open at once need (duckdb-read-memory.ts). Without a limit DuckDB keeps every block it
 * reads, up to 80% of the memory: a 1 GB table of 1 KB rows read into Postgres peaked at 1.2 GB,
 * and larger tables grew with them (bench/README.md, 2026-12-07).
 */
export const READ_BASE_BYTES = 64e6;

/** DuckDB's vector size: the rows of a data chunk, and a row group holds a whole number of them. */
export const DUCKDB_VECTOR_SIZE = 2048;

/** What DuckDB reads as a size (`"256MB"`, `"1.5GB"`, `"512 MiB"`), or `"-1"`: DuckDB's own default. */
const SIZE = /^(?:-1|(?:\d+(?:\.\d+)?) ?(?:b|bytes|kb|mb|gb|tb|kib|mib|gib|tib))$/i;

/** The target's settings as DuckDB takes them: defaults for what is unset, refused when DuckDB would not take them. */
export function memorySettings(options: { readonly memory_limit?: unknown; readonly row_group_size?: unknown }): MemorySettings {
  return {
    memoryLimit: memoryLimit(options.memory_limit),
    rowGroupSize: rowGroupSize(options.row_group_size),
    raisable: options.memory_limit === undefined,
  };
}

/** A DuckDB source's `memory_limit` as DuckDB takes it; undefined when unset (see duckdb-read-memory.ts). */
export function sourceMemoryLimit(options: { readonly memory_limit?: unknown }): string | undefined {
  return options.memory_limit === undefined ? undefined : memoryLimit(options.memory_limit, "source");
}

function memoryLimit(value: unknown, role: "target" | "source" = "target"): string {
  if (value === undefined) return DEFAULT_MEMORY_LIMIT;
  if (typeof value !== "string") throw new SqlloadError("SL103", `the DuckDB ${role}'s \`memory_limit\` must be a string`);
  const size = value.trim();
  if (!SIZE.test(size) || /^0+(?:\.0+)? ?[a-z]/i.test(size)) {
    throw new SqlloadError("SL107", `the DuckDB ${role}'s \`memory_limit\` ${JSON.stringify(value)} is not a size`, {
      hint: 'Give a size with a unit ("256MB", "2GB"), or "-1" for DuckDB\'s own default (80% of the memory).',
    });
  }
  return size;
}

/** DuckDB sets the size per attached database, not per table. */
function rowGroupSize(value: unknown): number {
  if (value === undefined) return DEFAULT_ROW_GROUP_SIZE;
  if (typeof value !== "number") throw new SqlloadError("SL103", "the DuckDB target's `row_group_size` must be an integer");
  if (
    !Number.isInteger(value) ||
    value < DUCKDB_VECTOR_SIZE ||
    value > DUCKDB_ROW_GROUP_SIZE ||
    value % DUCKDB_VECTOR_SIZE !== 0
  ) {
    throw new SqlloadError("SL107", `the DuckDB target's \`row_group_size\` ${value} is not a row group size DuckDB takes`, {
      hint: `Give a multiple of ${DUCKDB_VECTOR_SIZE} from ${DUCKDB_VECTOR_SIZE} to ${formatCount(DUCKDB_ROW_GROUP_SIZE)} (DuckDB's own), such as 16384.`,
    });
  }
  return value;
}
