import { compareCodePoints } from "../cursor/compare.js";
import type { CursorValue } from "../cursor/cursor-value.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import { BATCH_BYTES, valueBytes } from "./batch-bytes.js";
import { ColumnStore } from "./column-store.js";
import { jsonText } from "./json-text.js";
import type { Column, Schema } from "./logical-types.js";
import { storageOf } from "./storage-value.js";

/**
 * One column of a batch. `values` holds one slot per row, in the storage of the column's type:
 *
 * | logical type                         | `values`                               |
 * |--------------------------------------|----------------------------------------|
 * | boolean                              | Uint8Array, 0 or 1                     |
 * | int16, int32                         | Int32Array                             |
 * | int64                                | BigInt64Array                          |
 * | float32, float64                     | Float64Array                           |
 * | date                                 | Int32Array, days since 1970-01-01      |
 * | time                                 | BigInt64Array, µs since midnight       |
 * | timestamp, timestamptz               | BigInt64Array, µs since epoch, UTC     |
 * | decimal, text, uuid, json            | string[] (decimal exact, json as text) |
 * | bytes                                | Uint8Array[]                           |
 * | list                                 | unknown[][] of element row values      |
 *
 * `nulls[i] === 1` marks row i NULL (its slot in `values` is then meaningless); absent: no NULLs.
 */
export interface ColumnVector {
  readonly values: ArrayLike<unknown> & Iterable<unknown>;
  readonly nulls?: Uint8Array | undefined;
  /**
   * A text or json column's values as the UTF-8 bytes they were read as, when the source has them:
   * a target that writes bytes then never decodes them into strings (nor encodes them again), and
   * wide text never fills the JavaScript heap. Returns undefined when it cannot vouch for them (the
   * bytes are not valid UTF-8): the target then reads `values`. Valid only until the source is asked
   * for its next item, unlike values once read (see SourceItem); a sliced batch keeps its rows'
   * bytes, one made anew (filtered, held) has none.
   */
  readonly utf8?: (() => Utf8Fields | undefined) | undefined;
  /**
   * A decimal column's values as integers, when the source has them so: row r's value times
   * 10^`scale`, exact in a double (under 2^53 in magnitude), NaN for a NULL row. A target that
   * stores decimals as scaled integers (DuckDB, ClickHouse) then neither parses nor the source formats
   * a string per value, which was most of the garbage a load of narrow rows made. Returns undefined
   * when it cannot vouch for every row at that scale (a value with more fraction digits than
   * `scale`, more digits than a double holds exactly, NaN or infinity): the target then reads
   * `values`, and refuses what does not fit as before. Valid as long as `values` is.
   */
  readonly scaled?: ((scale: number) => Float64Array | undefined) | undefined;
  /**
   * The column's largest non-NULL value (text by code point) in its storage, or null when every
   * row is NULL: a source that decodes a cursor column as it reads gives it, so that the engine
   * learns a batch's maximum without reading `values`, which that source then need not allocate
   * (the Postgres source fills a few arrays in turn and copies one out only when `values` is read).
   * A slice, filter or copy of the column has none. Called only while the batch is (see SourceItem).
   */
  readonly max?: (() => unknown) | undefined;
}

/**
 * Where each row's UTF-8 bytes lie (see ColumnVector.utf8): row r's are `buffers[buffer[r]]` from
 * byte `offset[r]`, `length[r]` bytes long; a NULL row's length is -1. The bytes are valid UTF-8
 * and encode exactly the column's `values[r]`.
 */
export interface Utf8Fields {
  readonly buffers: readonly Uint8Array[];
  readonly buffer: Int32Array;
  readonly offset: Int32Array;
  readonly length: Int32Array;
}

/** Rows in columns: how data moves between sources, the engine and targets. */
export interface RecordBatch {
  readonly schema: Schema;
  readonly length: number;
  readonly columns: readonly ColumnVector[];
}

export { allocate, storageOf, toStorageValue } from "./storage-value.js";

/** Accumulates rows into a batch, converting and checking each value against its column. */
export class RecordBatchBuilder {
  private readonly stores: readonly ColumnStore[];
  private nulls: (Uint8Array | undefined)[];
  private size = 0;
  private heldBytes = 0;
  private readonly capacity: number;
  /** Whether each column holds values of varying size (text, json, bytes, lists), which `bytes` counts. */
  private readonly measured: readonly boolean[];

  /**
   * `rowOffset` numbers rows in errors from where the caller's stream is (1-based row = offset + index + 1).
   * `maxBytes`: the builder is `full` once its values of varying size reach it, before `capacity` rows.
   */
  constructor(
    readonly schema: Schema,
    capacity = 8192,
    private rowOffset = 0,
    private readonly maxBytes = BATCH_BYTES,
  ) {
    this.capacity = capacity;
    this.stores = schema.map((c) => new ColumnStore(c.type, capacity));
    this.nulls = schema.map(() => undefined);
    this.measured = schema.map((c) => storageOf(c.type) === "array");
  }

  get length(): number {
    return this.size;
  }

  /**
   * Bytes of the text, json, blobs and lists appended since the last flush, near enough: a string
   * counts its length in UTF-16 units (what a one-byte string takes in memory), a list its
   * elements, anything of fixed size in a list 8.
   */
  get bytes(): number {
    return this.heldBytes;
  }

  /** At `capacity` rows, or at `maxBytes` of values (the batch is cut after the row that reaches them). */
  get full(): boolean {
    return this.size >= this.capacity || this.heldBytes >= this.maxBytes;
  }

  /** Appends an object row (by column name) or an array row (by position). */
  append(row: Record<string, unknown> | readonly unknown[]): void {
    const i = this.size;
    const byPosition = Array.isArray(row);
    for (let c = 0; c < this.schema.length; c++) {
      const column = this.schema[c] as Column;
      const raw = byPosition ? (row as readonly unknown[])[c] : (row as Record<string, unknown>)[column.name];
      if (raw === null || raw === undefined) {
        if (!column.nullable) this.fail(i, column, raw, "the column is not nullable");
        let nulls = this.nulls[c];
        if (!nulls) {
          nulls = new Uint8Array(this.capacity);
          this.nulls[c] = nulls;
        }
        nulls[i] = 1;
        continue;
      }
      const store = this.stores[c] as ColumnStore;
      if (!store.set(i, raw)) this.fail(i, column, raw, `expected ${column.type.kind}`);
      if (this.measured[c]) this.heldBytes += valueBytes((store.values as unknown[])[i]);
    }
    this.size++;
  }

  private fail(index: number, column: Column, value: unknown, why: string): never {
    const shown =
      typeof value === "bigint"
        ? `${value}n`
        : value instanceof Date
          ? Number.isNaN(value.getTime())
            ? "Invalid Date"
            : value.toISOString()
          : jsonText(value);
    throw new SqlloadError(
      "SL300",
      `row ${this.rowOffset + index + 1}, column "${column.name}": value ${shown ?? String(value)} does not fit (${why})`,
    );
  }

  /** Returns the rows so far as a batch and starts a new one. */
  flush(): RecordBatch {
    const length = this.size;
    const batch: RecordBatch = {
      schema: this.schema,
      length,
      columns: this.stores.map((store, c) => {
        const values = store.take();
        return {
          values: length === this.capacity ? values : sliceValues(values, 0, length),
          nulls: this.nulls[c]?.subarray(0, length),
        };
      }),
    };
    this.rowOffset += length;
    this.size = 0;
    this.heldBytes = 0;
    this.nulls = this.schema.map(() => undefined);
    return batch;
  }
}

function sliceValues(values: ColumnVector["values"], start: number, end: number): ColumnVector["values"] {
  if (Array.isArray(values)) return values.slice(start, end);
  return (values as Int32Array).subarray(start, end);
}

export function batchFromRows(schema: Schema, rows: readonly (Record<string, unknown> | readonly unknown[])[]): RecordBatch {
  const builder = new RecordBatchBuilder(schema, Math.max(rows.length, 1));
  for (const row of rows) builder.append(row);
  return builder.flush();
}

export function isNull(column: ColumnVector, row: number): boolean {
  return column.nulls !== undefined && column.nulls[row] === 1;
}

/** The value of one cell as a plain JS value (bigint, number, string, boolean, Uint8Array, array), or null. */
export function cellValue(batch: RecordBatch, column: number, row: number): unknown {
  const vector = batch.columns[column] as ColumnVector;
  if (isNull(vector, row)) return null;
  const value = vector.values[row];
  return (batch.schema[column] as Column).type.kind === "boolean" ? value === 1 : value;
}

/** Rows of a batch as objects keyed by column name, with cellValue's values. For tests and small reads. */
export function batchToRows(batch: RecordBatch): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (let r = 0; r < batch.length; r++) {
    const row: Record<string, unknown> = {};
    batch.schema.forEach((col, c) => {
      row[col.name] = cellValue(batch, c, r);
    });
    rows.push(row);
  }
  return rows;
}

/** The cursor value of row `row` in column `column`, or null when the cell is NULL. */
export function cursorAt(batch: RecordBatch, column: number, row: number): CursorValue | null {
  const vector = batch.columns[column] as ColumnVector;
  if (isNull(vector, row)) return null;
  return storedCursor(vector.values[row], batch.schema[column] as Column);
}

/** A cursor column's value in its storage, as a cursor value. */
function storedCursor(value: unknown, column: Column): CursorValue {
  switch (column.type.kind) {
    case "int16":
    case "int32":
      return { kind: "integer", value: BigInt(value as number) };
    case "int64":
      return { kind: "integer", value: value as bigint };
    case "date":
      return { kind: "date", value: value as number };
    case "timestamp":
    case "timestamptz":
      return { kind: "timestamp", value: value as bigint };
    case "text":
      return { kind: "text", value: value as string };
    default:
      throw new TypeError(`column ${column.name} cannot be a cursor`);
  }
}

/** Keeps the rows whose `keep[i]` is 1; returns the same batch when every row is kept. */
export function filterBatch(batch: RecordBatch, keep: Uint8Array): RecordBatch {
  let count = 0;
  for (let i = 0; i < batch.length; i++) count += keep[i] as number;
  if (count === batch.length) return batch;
  const columns = batch.columns.map((vector) => {
    const isArray = Array.isArray(vector.values);
    const values = isArray
      ? new Array(count)
      : new (vector.values as unknown as { constructor: new (n: number) => Int32Array }).constructor(count);
    const nulls = vector.nulls ? new Uint8Array(count) : undefined;
    let j = 0;
    for (let i = 0; i < batch.length; i++) {
      if (!keep[i]) continue;
      (values as unknown[])[j] = vector.values[i];
      if (nulls && vector.nulls) nulls[j] = vector.nulls[i] as number;
      j++;
    }
    return { values: values as ColumnVector["values"], nulls };
  });
  return { schema: batch.schema, length: count, columns };
}

/**
 * The batch with every column read now, for a unit that keeps it past `write`: a source may reuse
 * the memory a batch's columns are read from once the item after it is asked for (see SourceItem).
 */
export function heldBatch(batch: RecordBatch): RecordBatch {
  const columns = batch.columns.map((c) => ({ values: c.values, nulls: c.nulls }));
  return { schema: batch.schema, length: batch.length, columns };
}

/** Rows `[start, end)` of a batch, sharing its storage where it can (typed arrays are views). */
export function sliceBatch(batch: RecordBatch, start: number, end: number): RecordBatch {
  if (start === 0 && end === batch.length) return batch;
  return {
    schema: batch.schema,
    length: end - start,
    columns: batch.columns.map((c) => sliceColumn(c, start, end)),
  };
}

/**
 * Rows `start` … `end - 1` of a column, with the UTF-8 bytes and scaled integers the source gave
 * for them, and its values and NULLs taken only when asked: an ordered read splits a batch wherever
 * a cursor value continues across batches (every batch, for a cursor of few distinct values), and
 * both halves had their values decoded and then took the targets' slower paths (each string
 * encoded, each decimal parsed).
 */
function sliceColumn(c: ColumnVector, start: number, end: number): ColumnVector {
  const { utf8, scaled } = c;
  let values: ColumnVector["values"] | undefined;
  let nulls: { readonly value: Uint8Array | undefined } | undefined;
  return {
    // Taken when asked, as the batch's own are: a target that writes the bytes or the scaled
    // integers never has the source decode the values.
    get values() {
      values ??= sliceValues(c.values, start, end);
      return values;
    },
    get nulls() {
      nulls ??= { value: c.nulls?.subarray(start, end) };
      return nulls.value;
    },
    ...(utf8
      ? {
          utf8: () => {
            const fields = utf8();
            return (
              fields && {
                buffers: fields.buffers,
                buffer: fields.buffer.subarray(start, end),
                offset: fields.offset.subarray(start, end),
                length: fields.length.subarray(start, end),
              }
            );
          },
        }
      : {}),
    ...(scaled ? { scaled: (scale: number) => scaled(scale)?.subarray(start, end) } : {}),
  };
}

/** Projects a batch onto columns by name, in the order given. */
export function selectColumns(batch: RecordBatch, names: readonly string[]): RecordBatch {
  const indexes = names.map((name) => {
    const i = batch.schema.findIndex((c) => c.name === name);
    if (i < 0) throw new SqlloadError("SL209", `column "${name}" is not in the data`);
    return i;
  });
  return {
    schema: indexes.map((i) => batch.schema[i] as Column),
    length: batch.length,
    columns: indexes.map((i) => batch.columns[i] as ColumnVector),
  };
}

/**
 * The largest non-NULL cursor value of a column (text by code point), scanning its storage
 * directly: one comparison per row, no value allocated per row.
 */
export function columnMaxCursor(batch: RecordBatch, column: number): CursorValue | null {
  const vector = batch.columns[column] as ColumnVector;
  const type = batch.schema[column] as Column;
  if (vector.max) {
    const max = vector.max();
    return max === null ? null : storedCursor(max, type);
  }
  const best = maxRow(vector.values, vector.nulls, batch.length, type.type.kind === "text");
  return best < 0 ? null : cursorAt(batch, column, best);
}

/**
 * The row of the largest non-NULL value among the first `length` of `values` (strings by code
 * point, otherwise numbers or bigints), or -1 when all are NULL: a source's `ColumnVector.max`.
 */
export function maxRow(values: ArrayLike<unknown>, nulls: Uint8Array | undefined, length: number, text: boolean): number {
  let best = -1;
  for (let i = 0; i < length; i++) {
    if (nulls && nulls[i] === 1) continue;
    if (best < 0) {
      best = i;
      continue;
    }
    const v = values[i];
    const b = values[best];
    if (text ? compareCodePoints(v as string, b as string) > 0 : (v as number | bigint) > (b as number | bigint)) best = i;
  }
  return best;
}

/**
 * The smallest and largest non-NULL cursor values of a column (text by code point), and whether
 * it holds a NULL, in one scan of its storage: what a target needs to skip deletes that cannot
 * touch a batch's rows.
 */
export function columnCursorSpan(
  batch: RecordBatch,
  column: number,
): { readonly min: CursorValue | null; readonly max: CursorValue | null; readonly nulls: boolean } {
  const vector = batch.columns[column] as ColumnVector;
  const values = vector.values as ArrayLike<unknown>;
  const text = (batch.schema[column] as Column).type.kind === "text";
  const less = (a: unknown, b: unknown) =>
    text ? compareCodePoints(a as string, b as string) < 0 : (a as number | bigint) < (b as number | bigint);
  let lo = -1;
  let hi = -1;
  let nulls = false;
  for (let i = 0; i < batch.length; i++) {
    if (vector.nulls?.[i] === 1) {
      nulls = true;
      continue;
    }
    if (lo < 0) {
      lo = hi = i;
      continue;
    }
    if (less(values[i], values[lo])) lo = i;
    else if (less(values[hi], values[i])) hi = i;
  }
  return lo < 0 ? { min: null, max: null, nulls } : { min: cursorAt(batch, column, lo), max: cursorAt(batch, column, hi), nulls };
}
