import type { DuckDBConnection, DuckDBDataChunk, DuckDBType, DuckDBValue, DuckDBVector } from "@duckdb/node-api";
import { allocate, BATCH_BYTES, type Column, type ColumnVector, type RecordBatch, storageOf, valueBytes } from "@sqlload/core";
import { checkReadEnd } from "./duckdb-read-end.js";
import { type FromDuckDB, fromDuckDB } from "./duckdb-values.js";

/** Rows per yielded batch: 16 DuckDB chunks, large enough that per-batch work vanishes, small enough to stream. */
export const BATCH_ROWS = 16 * 2048;

/**
 * Streams a query's rows as RecordBatches of BATCH_ROWS rows, or fewer once their text and blobs
 * reach core's BATCH_BYTES (rows of 1 KB make batches of 8 MB, rows of 100 KB of 80 rows), in the storage of `schema`
 * (one column per selected column, in order). The query must select canonical types (see
 * `readExpression`); `signal` is checked before each chunk is fetched.
 *
 * The read runs inside a transaction, so that a failure DuckDB's client does not report is seen
 * at its end (duckdb-read-end.ts): the caller's, when `inTransaction` says the connection is in
 * one, or one of its own, rolled back when the read ends or is abandoned.
 */
export async function* streamBatches(
  connection: DuckDBConnection,
  sql: string,
  schema: readonly Column[],
  values: Record<string, DuckDBValue>,
  types: Record<string, DuckDBType | undefined>,
  signal: AbortSignal,
  options: { readonly inTransaction?: boolean } = {},
): AsyncGenerator<RecordBatch> {
  const own = options.inTransaction !== true;
  if (own) await connection.run("BEGIN TRANSACTION");
  try {
    const result = await connection.stream(sql, values, types);
    const builder = new BatchBuilder(schema, result.columnTypes());
    let rows = 0;
    for (;;) {
      signal.throwIfAborted();
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) {
        // Before the last rows go: the end of a failed read must not reach the target's commit.
        await checkReadEnd(connection, { sql, values, types }, rows);
        if (builder.length > 0) yield builder.flush();
        return;
      }
      rows += chunk.rowCount;
      for (let at = 0; at < chunk.rowCount; ) {
        at = builder.add(chunk, at);
        if (builder.full) yield builder.flush();
      }
      // The chunk's text lives in native memory V8 does not see, freed only when V8 collects the
      // chunk; its values are copies now. Rows of 50 KB read in pages: 602 MB against 679 MB.
      chunk.reset();
    }
  } finally {
    // Only reads: a rollback ends them, and one DuckDB reports as aborted needs it as much.
    if (own) await connection.run("ROLLBACK").catch(() => undefined);
  }
}

/** About how many bytes a batch holds, for the engine's commit-every-gigabyte rule. */
export function estimateBytes(batch: RecordBatch): number {
  let bytes = 0;
  for (const { values } of batch.columns) {
    if (!Array.isArray(values)) {
      bytes += (values as Int32Array).byteLength;
      continue;
    }
    for (const value of values as unknown[]) {
      if (typeof value === "string") bytes += value.length;
      else if (value instanceof Uint8Array) bytes += value.byteLength;
      else if (Array.isArray(value)) bytes += 8 * value.length;
    }
  }
  return bytes;
}

/** Gathers DuckDB chunks into RecordBatch storage. */
class BatchBuilder {
  private readonly converters: FromDuckDB[];
  /** Columns of values whose size varies (text, blobs, lists), which `bytes` counts; and the rest. */
  private readonly varying: number[] = [];
  private readonly fixed: number[] = [];
  private values: ColumnVector["values"][] = [];
  private nulls: (Uint8Array | undefined)[] = [];
  length = 0;
  /** Bytes of the text, blobs and list elements gathered so far. */
  bytes = 0;

  constructor(
    private readonly schema: readonly Column[],
    types: readonly DuckDBType[],
  ) {
    this.converters = types.map((t) => fromDuckDB(t));
    schema.forEach((column, c) => {
      (storageOf(column.type) === "array" ? this.varying : this.fixed).push(c);
    });
    this.reset();
  }

  /** At BATCH_ROWS rows, or at BATCH_BYTES of text, blobs and list elements. */
  get full(): boolean {
    return this.length >= BATCH_ROWS || this.bytes >= BATCH_BYTES;
  }

  /**
   * Converts the chunk's rows from `from` on until the batch is full, and returns where it stopped.
   * A chunk is 2,048 rows, 200 MB of rows of 100 KB: the columns of varying size are converted a
   * row at a time, up to the row whose values reach BATCH_BYTES, and only then the others, column by
   * column, for the rows taken. So a batch, and what is converted for it, ends at that row.
   */
  add(chunk: DuckDBDataChunk, from: number): number {
    const offset = this.length;
    const room = Math.min(chunk.rowCount - from, BATCH_ROWS - offset);
    let take = room;
    if (this.varying.length > 0) {
      const vectors = this.varying.map((c) => chunk.getColumnVector(c));
      for (let i = 0; i < room; i++) {
        for (let v = 0; v < vectors.length; v++)
          this.bytes += valueBytes(this.convert(vectors[v] as DuckDBVector, this.varying[v] as number, from + i, offset + i));
        if (this.bytes >= BATCH_BYTES) {
          take = i + 1;
          break;
        }
      }
    }
    for (const c of this.fixed) {
      const vector = chunk.getColumnVector(c);
      for (let i = 0; i < take; i++) this.convert(vector, c, from + i, offset + i);
    }
    this.length += take;
    return from + take;
  }

  /** Converts row `row` of `vector` (column `c`) into slot `slot`, and returns the value stored (null for NULL). */
  private convert(vector: DuckDBVector, c: number, row: number, slot: number): unknown {
    const item = vector.getItem(row);
    if (item === null) {
      let nulls = this.nulls[c];
      if (!nulls) this.nulls[c] = nulls = new Uint8Array(BATCH_ROWS);
      nulls[slot] = 1;
      return null;
    }
    const value = (this.converters[c] as FromDuckDB)(item);
    (this.values[c] as unknown[])[slot] = value;
    return value;
  }

  flush(): RecordBatch {
    const length = this.length;
    const batch: RecordBatch = {
      schema: this.schema,
      length,
      columns: this.values.map((values, c) => ({
        values: Array.isArray(values) ? values.slice(0, length) : (values as Int32Array).subarray(0, length),
        nulls: this.nulls[c]?.subarray(0, length),
      })),
    };
    this.reset();
    return batch;
  }

  private reset(): void {
    this.values = this.schema.map((c) => allocate(c.type, BATCH_ROWS));
    this.nulls = this.schema.map(() => undefined);
    this.length = 0;
    this.bytes = 0;
  }
}
