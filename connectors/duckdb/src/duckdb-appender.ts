import type { DuckDBAppender, DuckDBConnection, DuckDBType } from "@duckdb/node-api";
import { type ColumnVector, type RecordBatch, SqlloadError } from "@sqlload/core";
import { bindings, DuckDBDataChunk } from "./duckdb-client.js";
import { copyColumn } from "./duckdb-column-copy.js";
import { DUCKDB_VECTOR_SIZE } from "./duckdb-memory-settings.js";
import { type ToDuckDB, toDuckDB } from "./duckdb-values.js";

/** The most rows one data chunk holds. */
const CHUNK_ROWS = DUCKDB_VECTOR_SIZE;

export interface AppendTarget {
  /** `temp` for a connection's temporary tables; the database's own catalog when absent. */
  readonly catalog?: string | undefined;
  readonly schema: string;
  readonly name: string;
  /** The table's column names in table order (the appender fills every column, by position). */
  readonly columns: readonly string[];
  /** How errors name the table. */
  readonly label: string;
  /**
   * Match batch columns to table columns by exact name only. By default a batch column that
   * matches no table column exactly matches one ignoring case, as DuckDB resolves names; a
   * connector whose tables keep case-sensitive names outside DuckDB (Parquet files) sets this, so
   * a batch column `ID` is refused rather than written into `id`.
   */
  readonly exactNames?: boolean | undefined;
}

/**
 * Appends a batch through DuckDB's appender (see `TableAppender`) and closes it, so the rows are
 * in the connection's transaction when it returns.
 */
export async function appendBatch(connection: DuckDBConnection, target: AppendTarget, batch: RecordBatch): Promise<void> {
  if (batch.length === 0) return;
  const appender = await TableAppender.open(connection, target);
  try {
    // Closed right after: it is never flushed early, so the batch's size is not needed.
    appender.append(batch, 0);
  } catch (error) {
    appender.discard();
    throw error;
  }
  appender.close();
}

/**
 * One DuckDB appender kept open over many batches, so DuckDB gathers their rows into its own
 * row groups and flushes once rather than once per batch. Each batch goes in as data chunks of
 * up to 2048 rows, filled a whole column at a time (duckdb-column-copy.ts), or value by value for
 * the types that have no block layout. Columns are matched by name (see `AppendTarget.exactNames`);
 * table columns the batch lacks get NULL. The appender takes part in the connection's open
 * transaction: a ROLLBACK discards what it appended, and its rows are only visible to statements
 * on the connection once it is closed.
 */
export class TableAppender {
  /** About how many bytes went in since DuckDB last flushed the appender into the table. */
  private pending = 0;
  /**
   * One data chunk, reset and refilled for every 2048 rows. A chunk's memory (its string heap:
   * 2 MB for 2048 rows of 1 KB text) is native and invisible to V8, so chunks left to the garbage
   * collector piled up by the hundred on a wide table before a collection freed them.
   */
  private chunk: DuckDBDataChunk | undefined;

  private constructor(
    private readonly appender: DuckDBAppender,
    private readonly target: AppendTarget,
    private readonly types: readonly DuckDBType[],
    private readonly converters: readonly (ToDuckDB | undefined)[],
  ) {}

  static async open(connection: DuckDBConnection, target: AppendTarget): Promise<TableAppender> {
    const appender = await connection.createAppender(target.name, target.schema, target.catalog ?? null);
    const count = appender.columnCount;
    if (count !== target.columns.length) {
      appender.closeSync();
      throw new SqlloadError("SL305", `${target.label} has ${count} columns, expected ${target.columns.length}`);
    }
    const types: DuckDBType[] = [];
    for (let c = 0; c < count; c++) types.push(appender.columnType(c));
    return new TableAppender(
      appender,
      target,
      types,
      types.map(() => undefined),
    );
  }

  /** `bytes`: the batch's size as `measureBatch` (duckdb-write-memory.ts) gives it, which decides when to flush. */
  append(batch: RecordBatch, bytes: number): void {
    if (batch.length === 0) return;
    const sources = matchColumns(this.target, batch);
    const { types, target } = this;
    for (let start = 0; start < batch.length; start += CHUNK_ROWS) {
      const rows = Math.min(CHUNK_ROWS, batch.length - start);
      const chunk = this.reuseChunk(rows);
      for (let c = 0; c < types.length; c++) {
        const name = target.columns[c] as string;
        const type = types[c] as DuckDBType;
        const fail = (row: number, cause: Error): never => {
          throw doesNotFit(row, name, sources[c]?.values[row], cause);
        };
        const raw = bindings.data_chunk_get_vector(chunk.chunk, c);
        if (!copyColumn(raw, type, sources[c], start, rows, fail)) {
          fillVector(chunk, c, rows, start, sources[c], this.converter(c), name);
        }
      }
      this.appender.appendDataChunk(chunk);
    }
    // DuckDB holds appended rows until it has 204,800 of them, whatever their width; a wide table
    // would hold hundreds of megabytes. Flushing by bytes keeps that bounded.
    this.pending += bytes;
    if (this.pending >= FLUSH_BYTES) {
      this.appender.flushSync();
      this.pending = 0;
    }
  }

  /** The appender copies a chunk's rows when it is appended, so the chunk is free again right after. */
  private reuseChunk(rows: number): DuckDBDataChunk {
    if (this.chunk) this.chunk.reset();
    else this.chunk = DuckDBDataChunk.create(this.types as DuckDBType[]);
    // Also drops the client's vector wrappers, which were sized for the previous row count.
    this.chunk.rowCount = rows;
    return this.chunk;
  }

  /** Flushes the appended rows into the transaction; a constraint failure surfaces here. */
  close(): void {
    this.appender.closeSync();
  }

  /** Ends the appender after a failure, which is the error worth reporting, not what closing says. */
  discard(): void {
    try {
      this.appender.clear();
      this.appender.closeSync();
    } catch {}
  }

  private converter(c: number): ToDuckDB {
    const converters = this.converters as (ToDuckDB | undefined)[];
    converters[c] ??= toDuckDB(this.types[c] as DuckDBType);
    return converters[c];
  }
}

/** How much an open appender may hold before it is flushed into the table. */
export const FLUSH_BYTES = 16 << 20;

function doesNotFit(row: number, name: string, value: unknown, cause: unknown): SqlloadError {
  const shown = typeof value === "bigint" ? `${value}n` : JSON.stringify(value);
  return new SqlloadError(
    "SL300",
    `row ${row + 1}, column "${name}": value ${shown} does not fit (${(cause as Error).message})`,
    {
      cause,
    },
  );
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
  // Every vector of a chunk must be written and flushed, NULL ones too: the client reads unset
  // ones as garbage.
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
        throw doesNotFit(row, name, values[row], cause);
      }
    }
  }
  vector.flush();
}

/**
 * For each table column, the batch column of that name: exactly, else (unless `exactNames`) as
 * DuckDB matches names, ignoring case.
 */
function matchColumns(target: AppendTarget, batch: RecordBatch): (ColumnVector | undefined)[] {
  const byName = new Map<string, number>();
  target.columns.forEach((name, i) => {
    byName.set(name, i);
  });
  const folded = new Map<string, number>();
  target.columns.forEach((name, i) => {
    folded.set(name.toLowerCase(), i);
  });
  const sources: (ColumnVector | undefined)[] = target.columns.map(() => undefined);
  batch.schema.forEach((column, b) => {
    const i = byName.get(column.name) ?? (target.exactNames ? undefined : folded.get(column.name.toLowerCase()));
    if (i === undefined) {
      throw new SqlloadError("SL305", `${target.label} has no column "${column.name}"`, {
        hint: "The table must be evolved (ensureTable) before writing a batch with new columns.",
      });
    }
    sources[i] = batch.columns[b];
  });
  return sources;
}
