import type { DuckDBType } from "@duckdb/node-api";
import { DuckDBTypeId } from "./duckdb-client.js";
import type { RaisableLimit } from "./duckdb-memory-limit.js";
import { DUCKDB_VECTOR_SIZE, READ_BASE_BYTES } from "./duckdb-memory-settings.js";
import { OVERFLOW_BYTES } from "./duckdb-write-memory.js";

/** Per column and thread: a scan pins a block of each column it reads, and one of its validity mask. */
export const COLUMN_BYTES = 512 * 1024;

/**
 * Per thread, chunks whose text still pins the blocks it was read from (text DuckDB stores
 * uncompressed is handed out in place): the one being scanned and the one handed on. Measured with
 * two threads, 2,048 rows a chunk: 40 columns of 3,500 random characters (287 MB a chunk) failed to
 * read under 384 MB and read under 512 MB, 100 of 1,000 (205 MB) between 256 and 384 MB, 200 of 200
 * (95 MB) between 192 and 256 MB.
 */
const CHUNKS_PER_THREAD = 2;

/**
 * DuckDB's `streaming_buffer_size`: what a streaming result buffers for its client, by its own
 * count of a chunk, which gives a string its 16-byte slot only (Vector::GetAllocationSize). So a
 * table of few columns buffers many chunks, each holding its text.
 */
const STREAMING_BUFFER_BYTES = 1_000_000;

/** A table's columns as a read sees them: the leaf columns and the widest row, when the stats tell it. */
export interface ReadShape {
  /** Leaf columns (a struct's fields each), each scanned on its own. */
  readonly leaves: number;
  /** Bytes of DuckDB's vector slots of a row (16 a string, a number's width). */
  readonly slotBytes: number;
  /** The most a row's text and blobs may hold, from the table's statistics; undefined when they do not say. */
  readonly textBytes: number | undefined;
  /**
   * Whether a column's longest value is OVERFLOW_BYTES or more: DuckDB reads each such value into
   * memory of its pool, and buffers chunks of them by their slots alone (20,000 rows of 50 KB took
   * 2.4 GB), so only a read in pages bounds them (duckdb-read-pages.ts).
   */
  readonly long: boolean;
}

/**
 * What a streamed read of a table of this shape needs of DuckDB's memory_limit, beside
 * READ_BASE_BYTES; undefined when only DuckDB's own limit is safe: `long` text (unless read in
 * pages, duckdb-read-pages.ts), lists, maps and unions (a row's elements are not bounded), text the
 * statistics do not measure, and every type not known to be fixed (GEOMETRY and BIGNUM values of
 * 12 KB failed to read under the 68 MB a rule that took them as fixed gave).
 */
export function memoryForRead(shape: ReadShape, threads: number): number | undefined {
  if (shape.textBytes === undefined || shape.long) return undefined;
  const rowBytes = shape.slotBytes + shape.textBytes;
  const buffered = Math.ceil(STREAMING_BUFFER_BYTES / (DUCKDB_VECTOR_SIZE * Math.max(shape.slotBytes, 1)));
  const chunkBytes = DUCKDB_VECTOR_SIZE * rowBytes;
  return threads * (shape.leaves * COLUMN_BYTES + CHUNKS_PER_THREAD * chunkBytes) + buffered * chunkBytes;
}

/**
 * The shape of the columns a read selects: their DuckDB types, and for each the statistics DuckDB
 * keeps of it (`stats(column)`: "…, Max String Length: 1056]…"), or null when there are none.
 * Without `stats`, the shape of a scan of the columns, their text not counted.
 */
export function readShape(types: readonly DuckDBType[], stats?: readonly (string | null)[]): ReadShape {
  let leaves = 0;
  let slotBytes = 0;
  let textBytes: number | undefined = 0;
  let long = false;
  types.forEach((type, c) => {
    const column = stats ? columnShape(type, stats[c] ?? null) : { ...columnShape(type, null), textBytes: 0, long: false };
    leaves += column.leaves;
    slotBytes += column.slotBytes;
    textBytes = textBytes === undefined || column.textBytes === undefined ? undefined : textBytes + column.textBytes;
    long ||= column.long;
  });
  return { leaves, slotBytes, textBytes, long };
}

/**
 * Types DuckDB keeps in a fixed slot, or (an ENUM, read as text) as text it makes from its own
 * dictionary: none of them holds the blocks it was read from.
 */
export const FIXED = new Set<number>([
  DuckDBTypeId.BOOLEAN,
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.DECIMAL,
  DuckDBTypeId.DATE,
  DuckDBTypeId.TIME,
  DuckDBTypeId.TIME_NS,
  DuckDBTypeId.TIME_TZ,
  DuckDBTypeId.TIMESTAMP,
  DuckDBTypeId.TIMESTAMP_S,
  DuckDBTypeId.TIMESTAMP_MS,
  DuckDBTypeId.TIMESTAMP_NS,
  DuckDBTypeId.TIMESTAMP_TZ,
  DuckDBTypeId.INTERVAL,
  DuckDBTypeId.UUID,
  DuckDBTypeId.ENUM,
  DuckDBTypeId.SQLNULL,
]);

function columnShape(type: DuckDBType, stats: string | null): ReadShape {
  if (FIXED.has(type.typeId)) return { leaves: 1, slotBytes: 16, textBytes: 0, long: false };
  switch (type.typeId) {
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.BLOB:
    case DuckDBTypeId.BIT: {
      const longest = maxStringLength(stats);
      return { leaves: 1, slotBytes: 16, textBytes: longest, long: longest !== undefined && longest >= OVERFLOW_BYTES };
    }
    case DuckDBTypeId.STRUCT: {
      const entries = (type as unknown as { readonly entryTypes: readonly DuckDBType[] }).entryTypes;
      // A field's statistics are inside the struct's; its longest text is the struct's longest.
      const fields = readShape(
        entries,
        entries.map(() => stats),
      );
      return { ...fields, leaves: fields.leaves + 1 };
    }
    default:
      // Lists, maps, arrays and unions (a row's elements are not bounded), and what DuckDB stores
      // as strings its statistics do not measure (GEOMETRY, BIGNUM, VARIANT) or types not known here.
      return { leaves: 1, slotBytes: 16, textBytes: undefined, long: false };
  }
}

/** The largest "Max String Length" in DuckDB's statistics of a column (a struct's: any of its fields'). */
function maxStringLength(stats: string | null): number | undefined {
  if (stats === null) return undefined;
  let longest: number | undefined;
  for (const match of stats.matchAll(/Max String Length: (\d+)/g)) longest = Math.max(longest ?? 0, Number(match[1]));
  return longest;
}

/**
 * A source file's memory_limit: READ_BASE_BYTES, raised while reads are open to what they need
 * together (never lowered: see RaisableLimit), to DuckDB's own default for a read whose need is
 * not known.
 */
export class ReadMemory {
  private held = 0;

  constructor(private readonly limit: RaisableLimit) {}

  /** Raises the limit for a read that needs `need` beside the others open; returns its release. */
  async hold(need: number | undefined): Promise<() => void> {
    const bytes = need ?? this.limit.ceiling;
    this.held += bytes;
    try {
      await this.limit.raise(READ_BASE_BYTES + this.held);
    } catch (error) {
      this.held -= bytes;
      throw error;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= bytes;
    };
  }
}
