import {
  BATCH_BYTES,
  type Column,
  formatCount,
  isJson,
  isSqlloadError,
  type Json,
  type ReadRequest,
  type RecordBatch,
  RecordBatchBuilder,
  type SourceItem,
  type SourceTableReader,
  SqlloadError,
  valueBytes,
} from "@sqlload/core";
import { type Context, isCheckpoint, type TableDefinition } from "./api.js";
import { cursorArgument } from "./cursor-arguments.js";
import { inferColumns } from "./declared-columns.js";

/** Rows per batch handed to the engine, fewer once their values reach core's BATCH_BYTES. */
const BATCH_ROWS = 10_000;
/** What adding a row that does not fill a batch yields. */
const NOTHING: readonly SourceItem[] = Object.freeze([]);
/** Rows sampled to infer columns when a table declares none (fewer once they hold BATCH_BYTES). */
const INFER_ROWS = 100;

/** Calls a table function once per read and turns what it yields into batches and checkpoints. */
export class TypeScriptReader implements SourceTableReader {
  constructor(
    private readonly table: TableDefinition<unknown>,
    private readonly columns: readonly Column[] | undefined,
    private readonly tableName: string,
  ) {}

  async *read(request: ReadRequest): AsyncIterable<SourceItem> {
    const logged = this.table.options.state === "logged";
    const state = new StateTracker(request.state ?? undefined);
    const ctx: Context<unknown> = {
      get state() {
        return state.current;
      },
      set state(value: unknown) {
        state.assign(value);
      },
      cursorValue: cursorArgument(request.range.from),
      cursorEnd: cursorArgument(request.range.to),
      range: { from: request.range.from, fromInclusive: request.range.fromInclusive !== false, to: request.range.to },
      window: request.window,
      signal: request.signal,
      pace: request.pace ?? (() => Promise.resolve()),
    };
    let builder: RecordBatchBuilder | undefined = this.columns ? new RecordBatchBuilder(this.columns, BATCH_ROWS) : undefined;
    let sample: Record<string, unknown>[] | undefined = this.columns ? undefined : [];
    let sampleBytes = 0;
    let rowCount = 0;
    /** Once a function yields a checkpoint, only checkpoints move the position during the run. */
    let checkpointed = false;

    /**
     * Without checkpoints, a commit after a batch records the value `ctx.state` had one
     * assignment before its current one: the current one may already point past rows still in flight.
     */
    const afterBatch = (batch: RecordBatch): SourceItem[] =>
      !logged || checkpointed
        ? [{ kind: "batch", batch }]
        : [
            { kind: "batch", batch },
            { kind: "checkpoint", state: this.json(state.previous) },
          ];
    /**
     * Appends the rows held back to infer the columns, cutting a batch wherever it is full (rows of
     * 100 KB fill one in 80 rows). `ctx.state` has moved on since the first of them, so their
     * batches carry no checkpoint: the next one after them does.
     */
    const appendSample = (target: RecordBatchBuilder, rows: readonly Record<string, unknown>[]): SourceItem[] => {
      const items: SourceItem[] = [];
      for (const row of rows) {
        target.append(row);
        if (target.full) items.push({ kind: "batch", batch: target.flush() });
      }
      return items;
    };
    const add = (row: Record<string, unknown>): readonly SourceItem[] => {
      if (!row || typeof row !== "object") this.fail(`yielded ${JSON.stringify(row)}, not a row object`);
      rowCount++;
      if (!sample) {
        // The common case, once per row: no array made unless the row fills a batch.
        const target = builder as RecordBatchBuilder;
        target.append(row);
        return target.full ? afterBatch(target.flush()) : NOTHING;
      }
      sample.push(row);
      sampleBytes += rowBytes(row);
      if (sample.length < INFER_ROWS && sampleBytes < BATCH_BYTES) return [];
      return startFromSample();
    };
    /** Infers the columns from the rows sampled so far, and appends them. */
    const startFromSample = (): SourceItem[] => {
      const rows = sample ?? [];
      builder = new RecordBatchBuilder(inferColumns(rows), BATCH_ROWS);
      sample = undefined;
      sampleBytes = 0;
      return appendSample(builder, rows);
    };
    /** The rows not yet in a batch, as one, where the yielding function stops or checkpoints. */
    const flush = (): SourceItem[] => {
      if (sample?.length) {
        const items = startFromSample();
        sample = [];
        return [...items, ...flush()];
      }
      return builder && builder.length > 0 ? [{ kind: "batch", batch: builder.flush() }] : [];
    };

    let iterable: AsyncIterable<unknown> | Iterable<unknown>;
    try {
      iterable = this.table.fn(ctx) as AsyncIterable<unknown> | Iterable<unknown>;
    } catch (cause) {
      this.fail(`threw: ${(cause as Error).message}`, cause);
    }
    try {
      for await (const value of iterable as AsyncIterable<unknown>) {
        if (request.signal.aborted) return;
        if (isCheckpoint(value)) {
          if (!logged)
            throw new SqlloadError("SL501", `table ${this.tableName} yielded a checkpoint but does not set state: "logged"`);
          if (!isJson(value.state)) throw new SqlloadError("SL502", `table ${this.tableName}: checkpoint value is not JSON`);
          yield* flush();
          checkpointed = true;
          state.checkpoint(value.state);
          yield { kind: "checkpoint", state: value.state };
          continue;
        }
        if (Array.isArray(value)) {
          for (const row of value) {
            const items = add(row as Record<string, unknown>);
            if (items.length > 0) yield* items;
          }
          continue;
        }
        const items = add(value as Record<string, unknown>);
        if (items.length > 0) yield* items;
      }
      // Inside the try: the rows held back to infer the columns meet their columns here.
      yield* flush();
    } catch (cause) {
      if (isSqlloadError(cause)) {
        if (cause.code === "SL300")
          throw new SqlloadError("SL300", `table ${this.tableName}: ${cause.message}`, { table: this.tableName, cause });
        throw cause;
      }
      this.fail(`failed after ${formatCount(rowCount)} rows: ${(cause as Error).message}`, cause);
    }
    // A value left in ctx.state at the end becomes the final position.
    if (logged) yield { kind: "checkpoint", state: this.json(state.current) };
  }

  private json(value: unknown): Json {
    if (value === undefined) return null;
    if (!isJson(value))
      throw new SqlloadError("SL502", `table ${this.tableName}: ctx.state is not JSON: ${String(value)}`, {
        table: this.tableName,
      });
    return value;
  }

  private fail(message: string, cause?: unknown): never {
    throw new SqlloadError("SL303", `table function ${this.table.name} (${this.table.module ?? "module"}) ${message}`, {
      table: this.tableName,
      cause,
    });
  }

  async close(): Promise<void> {}
}

/** Follows `ctx.state`: its current value and the one before the last assignment. */
class StateTracker {
  previous: unknown;

  constructor(public current: unknown) {
    this.previous = current;
  }

  assign(value: unknown): void {
    this.previous = this.current;
    this.current = value;
  }

  /** A checkpoint is the position itself: nothing before it is in flight. */
  checkpoint(value: unknown): void {
    this.previous = value;
    this.current = value;
  }
}

/** Roughly what a row a table function yielded holds: its text, blobs and lists, 8 bytes for anything else. */
function rowBytes(row: Record<string, unknown>): number {
  let bytes = 0;
  for (const key in row) bytes += valueBytes(row[key]);
  return bytes;
}
