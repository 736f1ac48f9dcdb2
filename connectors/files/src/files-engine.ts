import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type DuckDBConnection,
  DuckDBDataChunk,
  DuckDBInstance,
  DuckDBListValue,
  type DuckDBResult,
  type DuckDBType,
  type DuckDBValue,
  LIST,
  VARCHAR,
} from "@duckdb/node-api";
import {
  type Column,
  type ColumnVector,
  type ErrorCode,
  isSqlloadError,
  type RecordBatch,
  SqlloadError,
  storageOf,
} from "@sqlload/core";
import { type FromDuckDB, fromDuckDB, type ToDuckDB, toDuckDB } from "./files-types.js";

/** An in-memory DuckDB and the folder it spills to; `close` removes both. */
export interface Engine {
  readonly instance: DuckDBInstance;
  close(): void;
}

/**
 * An in-memory DuckDB that does the file work: reading Parquet, CSV and JSON lines, and writing
 * Parquet. Extensions are never installed or auto-loaded (parquet, json and icu are built in),
 * nothing is written to `~/.duckdb`, rows that do not fit in memory spill to a temporary folder
 * of its own, and times are UTC, so a TIMESTAMPTZ never renders in the machine's zone.
 */
export async function openEngine(): Promise<Engine> {
  // DuckDB creates the folder only when it spills, so a killed run rarely leaves one behind.
  const temp = join(tmpdir(), `sqlload-files-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    const instance = await DuckDBInstance.create(":memory:", {
      extension_directory: join(tmpdir(), "sqlload-duckdb-extensions"),
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
      temp_directory: temp,
      // Two threads: the machines sqlload runs on are often shared, and file reads are I/O bound.
      threads: "2",
    });
    try {
      const connection = await instance.connect();
      await connection.run("SET GLOBAL TimeZone = 'UTC'");
      connection.closeSync();
    } catch (error) {
      instance.closeSync();
      throw error;
    }
    return {
      instance,
      close() {
        instance.closeSync();
        rmSync(temp, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
}

/** A list of file paths as a bound parameter: paths never go into SQL text. */
export function fileListParameter(paths: readonly string[]): { value: DuckDBValue; type: DuckDBType } {
  return { value: new DuckDBListValue(paths.map(escapeGlob)), type: LIST(VARCHAR) };
}

/**
 * DuckDB expands every path given to its readers as a glob; the characters it treats as patterns
 * are bracketed so a file named `a[1].csv` is read as itself.
 */
export function escapeGlob(path: string): string {
  return path.replace(/[*?[]/g, (c) => `[${c}]`);
}

/** The first line of a DuckDB message: the rest is a caret diagram of the SQL. */
export function duckdbMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0] ?? message;
}

/** Wraps a DuckDB error into `code`, keeping SqlloadErrors as they are. */
export function wrapError(error: unknown, code: ErrorCode, what: string, table?: string): SqlloadError {
  if (isSqlloadError(error)) return error;
  return new SqlloadError(code, `${what}: ${duckdbMessage(error)}`, { cause: error, ...(table ? { table } : {}) });
}

/** Rows per yielded batch: 16 DuckDB chunks. */
export const BATCH_ROWS = 16 * 2048;

/**
 * Streams a query's rows as RecordBatches of about BATCH_ROWS rows, in the storage of `schema`
 * (the query must select canonical types, see readExpression).
 */
export async function* streamBatches(
  connection: DuckDBConnection,
  sql: string,
  schema: readonly Column[],
  values: Record<string, DuckDBValue>,
  types: Record<string, DuckDBType | undefined>,
  signal: AbortSignal,
): AsyncGenerator<RecordBatch> {
  const result: DuckDBResult = await connection.stream(sql, values, types);
  const builder = new BatchBuilder(schema, result.columnTypes());
  for (;;) {
    signal.throwIfAborted();
    const chunk = await result.fetchChunk();
    const done = !chunk || chunk.rowCount === 0;
    if (!done) builder.add(chunk);
    if (builder.length > 0 && (done || builder.length >= BATCH_ROWS)) yield builder.flush();
    if (done) return;
  }
}

/** Gathers DuckDB chunks column by column into RecordBatch storage. */
class BatchBuilder {
  private readonly converters: FromDuckDB[];
  private values: ColumnVector["values"][] = [];
  private nulls: (Uint8Array | undefined)[] = [];
  length = 0;

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
          values[offset + i] = convert(item);
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
    this.values = this.schema.map((c) => allocate(storageOf(c.type), CAPACITY));
    this.nulls = this.schema.map(() => undefined);
    this.length = 0;
  }
}

// Room for one chunk past BATCH_ROWS: a batch is cut after the chunk that reaches it.
const CAPACITY = BATCH_ROWS + 2048;

function allocate(storage: ReturnType<typeof storageOf>, capacity: number): ColumnVector["values"] {
  switch (storage) {
    case "u8":
      return new Uint8Array(capacity);
    case "i32":
      return new Int32Array(capacity);
    case "i64":
      return new BigInt64Array(capacity);
    case "f64":
      return new Float64Array(capacity);
    case "array":
      return new Array(capacity);
  }
}

/** DuckDB's vector size: the most rows one data chunk holds. */
const CHUNK_ROWS = 2048;

/**
 * Appends a batch to a table of the engine through the appender, a data chunk at a time filled
 * column by column. Table columns are matched by name; those the batch lacks get NULL.
 */
export async function appendBatch(
  connection: DuckDBConnection,
  table: string,
  columns: readonly string[],
  batch: RecordBatch,
  label: string,
): Promise<void> {
  if (batch.length === 0) return;
  const byName = new Map(columns.map((name, i) => [name, i]));
  const sources: (ColumnVector | undefined)[] = columns.map(() => undefined);
  batch.schema.forEach((column, b) => {
    const i = byName.get(column.name);
    if (i === undefined) {
      throw new SqlloadError("SL305", `${label} has no column "${column.name}"`, {
        hint: "The table must be evolved (ensureTable) before writing a batch with new columns.",
      });
    }
    sources[i] = batch.columns[b];
  });
  const appender = await connection.createAppender(table);
  try {
    const types: DuckDBType[] = [];
    const converters: ToDuckDB[] = [];
    for (let c = 0; c < appender.columnCount; c++) {
      const type = appender.columnType(c);
      types.push(type);
      converters.push(toDuckDB(type));
    }
    for (let start = 0; start < batch.length; start += CHUNK_ROWS) {
      const rows = Math.min(CHUNK_ROWS, batch.length - start);
      const chunk = DuckDBDataChunk.create(types, rows);
      for (let c = 0; c < types.length; c++) {
        fillVector(chunk, c, rows, start, sources[c], converters[c] as ToDuckDB, columns[c] as string);
      }
      appender.appendDataChunk(chunk);
    }
  } catch (error) {
    try {
      appender.closeSync();
    } catch {}
    throw error;
  }
  appender.closeSync();
}

function fillVector(
  chunk: DuckDBDataChunk,
  column: number,
  rows: number,
  start: number,
  source: ColumnVector | undefined,
  convert: ToDuckDB,
  name: string,
): void {
  // Every vector of a chunk must be written and flushed, NULL ones too.
  const vector = chunk.getColumnVector(column);
  if (!source) {
    for (let i = 0; i < rows; i++) vector.setItem(i, null);
  } else {
    const { values, nulls } = source;
    for (let i = 0; i < rows; i++) {
      const row = start + i;
      if (nulls !== undefined && nulls[row] === 1) {
        vector.setItem(i, null);
        continue;
      }
      try {
        vector.setItem(i, convert(values[row]));
      } catch (cause) {
        const shown = typeof values[row] === "bigint" ? `${values[row]}n` : JSON.stringify(values[row]);
        throw new SqlloadError(
          "SL300",
          `row ${row + 1}, column "${name}": value ${shown} does not fit (${(cause as Error).message})`,
          {
            cause,
          },
        );
      }
    }
  }
  vector.flush();
}
