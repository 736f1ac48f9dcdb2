import type { DuckDBConnection, DuckDBDataChunk, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { allocate, type Column, type ColumnVector, type RecordBatch } from "@sqlload/core";
import { type FromDuckDB, fromDuckDB } from "./duckdb-values.js";

/** Rows per yielded batch: 16 DuckDB chunks, large enough that per-batch work vanishes, small enough to stream. */
export const BATCH_ROWS = 16 * 2048;

/**
 * Bytes of text and blobs at which a batch is cut before BATCH_ROWS, so rows of 1 KB make batches
 * of about 8 MB rather than 32 MB (the Postgres source's bound too).
 */
export const BATCH_BYTES = 8 << 20;

// Room for one chunk past BATCH_ROWS: a batch is cut after the chunk that reaches it.
const CAPACITY = BATCH_ROWS + 2048;

/**
 * Streams a query's rows as RecordBatches of about BATCH_ROWS rows in the storage of `schema`
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
    const done = !chunk || chunk.rowCount === 0;
    if (!done) builder.add(chunk);
    if (builder.length > 0 && (done || builder.length >= BATCH_ROWS || builder.bytes >= BATCH_BYTES)) yield builder.flush();
    if (done) return;
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

  add(chunk: DuckDBDataChunk): void {
    const rows = chunk.rowCount;
    const offset = this.length;
    for (let c = 0; c < this.schema.length; c++) {
      const vector = chunk.getColumnVector(c);
      const convert = this.converters[c] as FromDuckDB;
      const values = this.values[c] as unknown[];
      for (let i = 0; i < rows; i++) {
        const item = vector.getItem(i);
        if (item === null) {
          let nulls = this.nulls[c];
          if (!nulls) this.nulls[c] = nulls = new Uint8Array(CAPACITY);
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
    this.values = this.schema.map((c) => allocate(c.type, CAPACITY));
    this.nulls = this.schema.map(() => undefined);
    this.length = 0;
    this.bytes = 0;
  }
}
