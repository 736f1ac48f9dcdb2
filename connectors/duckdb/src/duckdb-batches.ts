import type { DuckDBConnection, DuckDBDataChunk, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { allocate, BATCH_BYTES, type Column, type ColumnVector, type RecordBatch } from "@sqlload/core";
import { type FromDuckDB, fromDuckDB } from "./duckdb-values.js";

/** Rows per yielded batch: 16 DuckDB chunks, large enough that per-batch work vanishes, small enough to stream. */
export const BATCH_ROWS = 16 * 2048;

/** Rows converted first into an empty batch, to learn how wide they are before converting more. */
const PROBE_ROWS = 16;

/**
 * Streams a query's rows as RecordBatches of BATCH_ROWS rows, or fewer once their text and blobs
 * reach core's BATCH_BYTES (rows of 1 KB make batches of 8 MB, rows of 100 KB of 80 rows), in the storage of `schema`
 * (one column per selected column, in order). The query must select canonical types (see
 * `readExpression`); `signal` is checked before each chunk is fetched.
 */
export async function* streamBatches(
  connection: DuckDBConnection,
  sql: string,
  schema: readonly Column[],
  values: Record<string, DuckDBValue>,
  types: Record<string, DuckDBType | undefined>,
  signal: AbortSignal,
): AsyncGenerator<RecordBatch> {
  const result = await connection.stream(sql, values, types);
  const builder = new BatchBuilder(schema, result.columnTypes());
  for (;;) {
    signal.throwIfAborted();
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) {
      if (builder.length > 0) yield builder.flush();
      return;
    }
    for (let at = 0; at < chunk.rowCount; ) {
      at = builder.add(chunk, at);
      if (builder.full) yield builder.flush();
    }
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

/** Gathers DuckDB chunks column by column into RecordBatch storage. */
class BatchBuilder {
  private readonly converters: FromDuckDB[];
  private values: ColumnVector["values"][] = [];
  private nulls: (Uint8Array | undefined)[] = [];
  length = 0;
  /** Bytes of the text and blobs gathered so far. */
  bytes = 0;

  constructor(
    private readonly schema: readonly Column[],
    types: readonly DuckDBType[],
  ) {
    this.converters = types.map((t) => fromDuckDB(t));
    this.reset();
  }

  /** At BATCH_ROWS rows, or at BATCH_BYTES of text and blobs. */
  get full(): boolean {
    return this.length >= BATCH_ROWS || this.bytes >= BATCH_BYTES;
  }

  /**
   * Converts the chunk's rows from `from` on until the batch is full, and returns where it stopped.
   * A chunk is 2,048 rows, 200 MB of rows of 100 KB: the rows are converted a block at a time,
   * each block as many rows as the batch's bytes so far say still fit, so a batch ends about where
   * its rows reach BATCH_BYTES rather than a chunk later.
   */
  add(chunk: DuckDBDataChunk, from: number): number {
    const rows = chunk.rowCount;
    let at = from;
    while (at < rows && !this.full) {
      const block = this.blockRows(rows - at);
      this.convert(chunk, at, block);
      at += block;
    }
    return at;
  }

  private blockRows(left: number): number {
    const room = Math.min(left, BATCH_ROWS - this.length);
    if (this.length === 0) return Math.min(room, PROBE_ROWS);
    if (this.bytes === 0) return room;
    const perRow = this.bytes / this.length;
    return Math.min(room, Math.max(1, Math.ceil((BATCH_BYTES - this.bytes) / perRow)));
  }

  private convert(chunk: DuckDBDataChunk, from: number, rows: number): void {
    const offset = this.length;
    for (let c = 0; c < this.schema.length; c++) {
      const vector = chunk.getColumnVector(c);
      const convert = this.converters[c] as FromDuckDB;
      const values = this.values[c] as unknown[];
      for (let i = 0; i < rows; i++) {
        const item = vector.getItem(from + i);
        if (item === null) {
          let nulls = this.nulls[c];
          if (!nulls) this.nulls[c] = nulls = new Uint8Array(BATCH_ROWS);
          nulls[offset + i] = 1;
        } else {
          const value = convert(item);
          values[offset + i] = value;
          if (typeof value === "string") this.bytes += value.length;
          else if (value instanceof Uint8Array) this.bytes += value.byteLength;
        }
      }
    }
    this.length += rows;
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
