import { totalmem } from "node:os";
import type { RecordBatch } from "@sqlload/core";
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

/** The memory_limit DuckDB needs to read back vectors whose longest values are these, by column. */
export function memoryForLongValues(longest: Iterable<number>): number {
  let vector = 0;
  for (const bytes of longest) if (bytes >= OVERFLOW_BYTES) vector += bytes;
  return HEADROOM * DUCKDB_VECTOR_SIZE * vector;
}

/** DuckDB's own default limit: 80% of the memory this process may use. The most a target raises its limit to. */
export function duckdbDefaultLimit(): number {
  const constrained = process.constrainedMemory?.() ?? 0;
  const memory = constrained > 0 ? Math.min(constrained, totalmem()) : totalmem();
  return Math.floor(memory * 0.8);
}

/** What an appender holds of a batch, near enough, and the longest value of each column, in bytes. */
export interface BatchMeasure {
  readonly bytes: number;
  /** By the batch's column names, lower case (DuckDB's names are case-insensitive); 0 for columns of no text. */
  readonly longest: ReadonlyMap<string, number>;
}

/** Typed arrays as they are, 16 bytes a slot (DuckDB's string slot) plus the text or blob itself. */
export function measureBatch(batch: RecordBatch): BatchMeasure {
  let bytes = 0;
  const longest = new Map<string, number>();
  batch.columns.forEach((column, c) => {
    const name = (batch.schema[c]?.name ?? "").toLowerCase();
    const fields = column.utf8?.();
    if (fields) {
      let max = 0;
      bytes += 16 * batch.length;
      for (let i = 0; i < batch.length; i++) {
        const length = fields.length[i] as number;
        if (length > 0) bytes += length;
        if (length > max) max = length;
      }
      longest.set(name, max);
      return;
    }
    const values = column.values;
    if (ArrayBuffer.isView(values)) {
      bytes += values.byteLength;
      return;
    }
    const measured = { bytes: 16 * batch.length, longest: 0 };
    for (let i = 0; i < batch.length; i++) measureValue(values[i], measured);
    bytes += measured.bytes;
    longest.set(name, measured.longest);
  });
  return { bytes, longest };
}

/** Adds a value's bytes to `into`, and its length (a list's: its longest element's) to the longest. */
function measureValue(value: unknown, into: { bytes: number; longest: number }): void {
  let length: number;
  if (typeof value === "string") {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: only a string that long may reach OVERFLOW_BYTES.
    length = value.length * 3 >= OVERFLOW_BYTES ? Buffer.byteLength(value) : value.length;
  } else if (value instanceof Uint8Array) {
    length = value.byteLength;
  } else if (Array.isArray(value)) {
    // DuckDB stores a list's text elements in a child column, long ones as overflow strings too.
    for (const element of value) measureValue(element, into);
    return;
  } else {
    return;
  }
  into.bytes += length;
  if (length > into.longest) into.longest = length;
}

/**
 * The memory_limit of one open target file, raised (never lowered) to what the long values this
 * process writes need, from the limit it was opened with up to DuckDB's own default. Tables are
 * tracked by the name a unit writes.
 *
 * Only the values written are counted, not those a table holds already: no later run failed under
 * 256 MB for them (3,000 short rows after 2,040 values of 100 KB, merges and deletes of such rows),
 * though a checkpoint that tries to merge small row groups reads them back and gives up (peak RSS
 * 760 MB there). Values a killed run left in the write-ahead log are checkpointed when the file is
 * next opened, under DuckDB's own limit (duckdb-database.ts).
 */
export class LongValueMemory {
  private readonly tables = new Map<string, Map<string, number>>();
  /** The SETs in order: each sets the limit as it is when it runs, so a later, higher one is never undone. */
  private setting: Promise<void> = Promise.resolve();

  constructor(
    private limit: number,
    private readonly setLimit: (bytes: number) => Promise<void>,
    private readonly ceiling = duckdbDefaultLimit(),
  ) {}

  /** Takes `longest` (by lower-case column name) into `table`'s account and raises the limit if they need it. */
  async fit(table: string, longest: ReadonlyMap<string, number>): Promise<void> {
    let columns = this.tables.get(table);
    if (!columns) this.tables.set(table, (columns = new Map()));
    for (const [name, bytes] of longest) if (bytes > (columns.get(name) ?? 0)) columns.set(name, bytes);
    const need = Math.min(memoryForLongValues(columns.values()), this.ceiling);
    if (need <= this.limit) return;
    // Set before the await: a unit that measures meanwhile compares against the new limit.
    const before = this.limit;
    this.limit = need;
    const set = this.setting.then(() => this.setLimit(this.limit));
    this.setting = set.catch(() => undefined);
    try {
      await set;
    } catch (error) {
      // Not raised: a later batch tries again.
      if (this.limit === need) this.limit = before;
      throw error;
    }
  }

  get bytes(): number {
    return this.limit;
  }
}
