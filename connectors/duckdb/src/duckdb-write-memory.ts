import type { LogicalType, RecordBatch } from "@sqlload/core";
import { duckdbTypeSql } from "./duckdb-dialect.js";
import { duckdbDefaultLimit, RaisableLimit } from "./duckdb-memory-limit.js";
import { DUCKDB_VECTOR_SIZE } from "./duckdb-memory-settings.js";

/**
 * DuckDB keeps a text or blob value of this many bytes or more out of its row group's own blocks,
 * as an "overflow string".
 */
export const OVERFLOW_BYTES = 4096;

/**
 * DuckDB keeps overflow strings it has not written in memory it cannot spill, and reads them back a
 * vector at a time when a commit writes them. Values of 100 KB (205 MB a vector) failed to commit
 * under 244 MiB ("failed to pin block"), in one commit of 2,000 or in commits of 1,000, and loaded
 * under 537 MiB; 60 KB (123 MB a vector) failed under 244 MiB, 45 KB (92 MB) loaded. When the
 * checkpoint after a commit fails, DuckDB refuses the file for the rest of the process. The limit
 * given is this many times a vector's bytes.
 */
const HEADROOM = 4;

/**
 * Shorter text stays in the row group's own blocks, yet a commit smaller than a row group keeps
 * about a vector of it pinned too (DuckDB 1.5.6, 32,768-row groups, the smallest limit that
 * committed): 40 columns of 3,500 characters (287 MB a vector) needed 298 MB, 20 of 3,500 149 MB,
 * 60 of 1,000 147 MB, 40 of 650 78 MB. So 40 of 3,500 failed under 256 MB, each value under
 * OVERFLOW_BYTES. The limit given is this many times a vector's bytes of it, a vector's bytes being
 * 2,048 times what a row held on average in the widest batch (a column's longest value would count
 * one long row among short ones 2,048 times).
 */
const SHORT_HEADROOM = 2;

/**
 * And each column keeps blocks pinned, whatever its type: a first commit of 1,000 columns of 10
 * characters needed 331 MB, 400 columns 134 MB; appending to a table that holds rows already, about
 * 1.05 MB a column (1,000 columns 1,047–1,054 MB, 400 columns 317–324 MB, a merge of 700 columns
 * 740–751 MB); 121 `bigint` columns failed under 32 MB. The limit given is this much a column.
 */
const COLUMN_BYTES = 1.25 * 1024 * 1024;

/** What the writes of one table need DuckDB's memory for, as measured over its batches. */
export interface WriteNeed {
  /** Each column's longest value, in bytes (a list's: its longest element's). */
  readonly longest: Iterable<number>;
  /** The bytes of values under OVERFLOW_BYTES that 2,048 rows hold, at most. */
  readonly shortVector: number;
  /** The table's columns, all of them: the appender fills those a batch lacks. */
  readonly columns: number;
}

/** The memory_limit DuckDB needs to write a table's rows. */
export function memoryForWrites(need: WriteNeed): number {
  let long = 0;
  for (const bytes of need.longest) if (bytes >= OVERFLOW_BYTES) long += bytes;
  return HEADROOM * DUCKDB_VECTOR_SIZE * long + SHORT_HEADROOM * need.shortVector + COLUMN_BYTES * need.columns;
}

/** What an appender holds of a batch, near enough, and what it tells of the table's need. */
export interface BatchMeasure {
  readonly bytes: number;
  readonly rows: number;
  /** The batch's columns, all of them. */
  readonly columns: number;
  /** By the batch's column names, lower case (DuckDB's names are case-insensitive); 0 for columns of no text. */
  readonly longest: ReadonlyMap<string, number>;
  /** The bytes of values (and list elements) under OVERFLOW_BYTES, over all its rows. */
  readonly short: number;
}

/** What one column of a batch adds up to (see BatchMeasure). */
interface ColumnMeasure {
  bytes: number;
  short: number;
  longest: number;
}

/**
 * Whether values of this type may be strings yet DuckDB keeps them in a fixed slot (16 bytes at
 * most), so they are measured by their slots: uuids, and decimals DuckDB has a width for. A wider
 * decimal is stored as VARCHAR (duckdbTypeSql), its digits counted like any text.
 */
function inFixedSlot(type: LogicalType | undefined): boolean {
  return type?.kind === "uuid" || (type?.kind === "decimal" && duckdbTypeSql(type) !== "VARCHAR");
}

/**
 * Typed arrays as they are, 16 bytes a slot (DuckDB's string slot) plus the text or blob itself, in
 * UTF-8. Values are asked for only where they are needed to measure: a text column that has its
 * UTF-8 bytes is measured by them, decimals and uuids by their slots, as a source would otherwise
 * decode them into strings the write never uses (a fifth of a Postgres to DuckDB load's time).
 */
export function measureBatch(batch: RecordBatch): BatchMeasure {
  let bytes = 0;
  let short = 0;
  const longest = new Map<string, number>();
  batch.columns.forEach((column, c) => {
    if (inFixedSlot(batch.schema[c]?.type)) {
      bytes += 16 * batch.length;
      return;
    }
    const fields = column.utf8?.();
    const values = fields ? undefined : column.values;
    if (values && ArrayBuffer.isView(values)) {
      bytes += values.byteLength;
      return;
    }
    const measured: ColumnMeasure = { bytes: 16 * batch.length, short: 0, longest: 0 };
    if (fields) {
      for (let i = 0; i < batch.length; i++) {
        const length = fields.length[i] as number;
        if (length > 0) addLength(length, measured);
      }
    } else if (values) {
      for (let i = 0; i < batch.length; i++) measureValue(values[i], measured);
    }
    bytes += measured.bytes;
    short += measured.short;
    longest.set((batch.schema[c]?.name ?? "").toLowerCase(), measured.longest);
  });
  return { bytes, rows: batch.length, columns: batch.columns.length, longest, short };
}

/** Adds a value's bytes to `into` (a list's elements one by one). */
function measureValue(value: unknown, into: ColumnMeasure): void {
  if (typeof value === "string") {
    // UTF-8 takes up to 3 bytes per UTF-16 unit; below 64 units the difference is not worth a call.
    addLength(value.length >= 64 ? Buffer.byteLength(value) : value.length, into);
  } else if (value instanceof Uint8Array) {
    addLength(value.byteLength, into);
  } else if (Array.isArray(value)) {
    // DuckDB stores a list's text elements in a child column, long ones as overflow strings too.
    for (const element of value) measureValue(element, into);
  }
}

/** Counts one value (or list element) of `length` bytes: into the bytes, the short ones under OVERFLOW_BYTES, the longest. */
function addLength(length: number, into: ColumnMeasure): void {
  into.bytes += length;
  if (length < OVERFLOW_BYTES) into.short += length;
  if (length > into.longest) into.longest = length;
}

/**
 * The memory_limit of one open target file, raised (never lowered) to what the rows this process
 * writes need (`memoryForWrites`: long values, wide rows of shorter text, many columns), from the
 * limit it was opened with up to DuckDB's own default. Tables are tracked by the name a unit writes.
 *
 * Only the values written are counted, not those a table holds already: no later run failed under
 * 256 MB for them (3,000 short rows after 2,040 values of 100 KB, merges and deletes of such rows),
 * though a checkpoint that tries to merge small row groups reads them back and gives up (peak RSS
 * 760 MB there). Values a killed run left in the write-ahead log are checkpointed when the file is
 * next opened, under DuckDB's own limit (duckdb-database.ts).
 */
export class WriteMemory {
  /** By table: what its batches so far need (see WriteNeed). */
  private readonly tables = new Map<string, { columns: number; shortVector: number; readonly longest: Map<string, number> }>();
  private readonly limit: RaisableLimit;

  constructor(limit: number, setLimit: (bytes: number) => Promise<void>, ceiling = duckdbDefaultLimit()) {
    this.limit = new RaisableLimit(limit, setLimit, ceiling);
  }

  /**
   * Takes a batch's measure into `table`'s account and raises the limit if the table's rows need
   * it. `columns`: the table's, when it has more than the batch.
   */
  async fit(table: string, measure: Pick<BatchMeasure, "rows" | "columns" | "longest" | "short">): Promise<void> {
    let seen = this.tables.get(table);
    if (!seen) this.tables.set(table, (seen = { columns: 0, shortVector: 0, longest: new Map() }));
    seen.columns = Math.max(seen.columns, measure.columns);
    if (measure.rows > 0) seen.shortVector = Math.max(seen.shortVector, (measure.short / measure.rows) * DUCKDB_VECTOR_SIZE);
    for (const [name, bytes] of measure.longest) if (bytes > (seen.longest.get(name) ?? 0)) seen.longest.set(name, bytes);
    await this.limit.raise(memoryForWrites({ ...seen, longest: seen.longest.values() }));
  }

  get bytes(): number {
    return this.limit.bytes;
  }
}
