import {
  type Column,
  type ReadRequest,
  RecordBatchBuilder,
  type SourceItem,
  type SourceTableReader,
  SqlloadError,
  isJson,
  isSqlloadError,
} from "@sqlload/core";
import { type Context, type TableDefinition, isCheckpoint } from "./api.js";
import { cursorArgument } from "./cursor-arguments.js";
import { inferColumns } from "./declared-columns.js";

/** Rows per batch handed to the engine. */
const BATCH_ROWS = 10_000;
/** Rows sampled to infer columns when a table declares none. */
const INFER_ROWS = 100;

/** Calls a table function once per read and turns what it yields into batches and checkpoints. */
export class TypeScriptReader implements SourceTableReader {
  constructor(
    private readonly table: TableDefinition<unknown>,
    private readonly columns: readonly Column[] | undefined,
    private readonly tableName: string,
  ) {}

  async *read(request: ReadRequest): AsyncIterable<SourceItem> {
    const ctx: Context<unknown> = {
      state: request.state ?? undefined,
      cursorValue: cursorArgument(request.range.from),
      cursorEnd: cursorArgument(request.range.to),
      range: { from: request.range.from, fromInclusive: request.range.fromInclusive !== false, to: request.range.to },
      window: request.window,
      signal: request.signal,
    };
    let builder: RecordBatchBuilder | undefined = this.columns ? new RecordBatchBuilder(this.columns, BATCH_ROWS) : undefined;
    let sample: Record<string, unknown>[] | undefined = this.columns ? undefined : [];
    let rowCount = 0;
    const logged = this.table.options.state === "logged";

    const add = (row: Record<string, unknown>): SourceItem | undefined => {
      if (!row || typeof row !== "object") this.fail(`yielded ${JSON.stringify(row)}, not a row object`);
      rowCount++;
      if (sample) {
        sample.push(row);
        if (sample.length < INFER_ROWS) return undefined;
        builder = this.startFromSample(sample);
        sample = undefined;
      } else {
        (builder as RecordBatchBuilder).append(row);
      }
      return builder?.full ? { kind: "batch", batch: builder.flush() } : undefined;
    };
    const flush = (): SourceItem | undefined => {
      if (sample?.length) {
        builder = this.startFromSample(sample);
        sample = [];
      }
      return builder && builder.length > 0 ? { kind: "batch", batch: builder.flush() } : undefined;
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
          if (!logged) throw new SqlloadError("SL501", `table ${this.tableName} yielded a checkpoint but does not set state: "logged"`);
          if (!isJson(value.state)) throw new SqlloadError("SL502", `table ${this.tableName}: checkpoint value is not JSON`);
          const pending = flush();
          if (pending) yield pending;
          yield { kind: "checkpoint", state: value.state };
          continue;
        }
        if (Array.isArray(value)) {
          for (const row of value) {
            const item = add(row as Record<string, unknown>);
            if (item) yield item;
          }
          continue;
        }
        const item = add(value as Record<string, unknown>);
        if (item) yield item;
      }
    } catch (cause) {
      if (isSqlloadError(cause)) {
        if (cause.code === "SL300") throw new SqlloadError("SL300", `table ${this.tableName}: ${cause.message}`, { table: this.tableName, cause });
        throw cause;
      }
      this.fail(`failed after ${rowCount.toLocaleString("en-US")} rows: ${(cause as Error).message}`, cause);
    }
    const last = flush();
    if (last) yield last;
  }

  private startFromSample(sample: Record<string, unknown>[]): RecordBatchBuilder {
    const builder = new RecordBatchBuilder(inferColumns(sample), BATCH_ROWS);
    for (const row of sample) builder.append(row);
    return builder;
  }

  private fail(message: string, cause?: unknown): never {
    throw new SqlloadError("SL303", `table function ${this.table.name} (${this.table.module ?? "module"}) ${message}`, { table: this.tableName, cause });
  }

  async close(): Promise<void> {}
}
