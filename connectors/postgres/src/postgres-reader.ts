import {
  type CursorValue,
  cursorAt,
  cursorEquals,
  type ReadRequest,
  type RecordBatch,
  type SourceItem,
  type SourceTableReader,
  SqlloadError,
} from "@sqlload/core";
import type pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import { attachRawCopy } from "./copy-binary.js";
import { CopyBinaryDecoder } from "./copy-binary-decoder.js";
import { type ErrorContext, toSqlloadError } from "./errors.js";
import {
  cursorCast,
  cursorLiteral,
  cursorParameter,
  cursorValueSql,
  parseCursorText,
  rangeCondition,
  readWire,
  selectExpression,
} from "./postgres-dialect.js";
import type { ResolvedTable } from "./postgres-source.js";

/** Rows `start` to `end` of a batch, sharing its storage where it can. */
function sliceBatch(batch: RecordBatch, start: number, end: number): RecordBatch {
  return {
    schema: batch.schema,
    length: end - start,
    columns: batch.columns.map((c) => ({
      values: Array.isArray(c.values) ? c.values.slice(start, end) : (c.values as Int32Array).subarray(start, end),
      nulls: c.nulls?.subarray(start, end),
    })),
  };
}

/**
 * One source table held open for its load: a client inside a `REPEATABLE READ READ ONLY`
 * transaction, so every window, the maximum and the first-value probes see one snapshot.
 * Calls run one at a time on that client.
 */
export class PostgresTableReader implements SourceTableReader {
  private queue: Promise<void> = Promise.resolve();
  private lost: SqlloadError | undefined;
  private closed = false;
  private released = false;
  /** A read is in progress and its consumer holds it: anything queued behind it would wait forever. */
  private reading = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly table: ResolvedTable,
    private readonly context: (action: string) => ErrorContext,
    private readonly onClose: () => void = () => undefined,
  ) {}

  /** Gives the client back once; with an error the pool closes it instead of reusing it. */
  private release(error?: Error): void {
    if (this.released) return;
    this.released = true;
    this.client.release(error);
  }

  /** Waits for the calls before; the returned function lets the next one in. */
  private async turn(): Promise<() => void> {
    if (this.reading) {
      throw new SqlloadError(
        "SL900",
        `${this.table.display} is being read: finish or stop the read before using its snapshot for anything else`,
      );
    }
    let release!: () => void;
    const previous = this.queue;
    this.queue = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    if (this.closed || this.lost) {
      release();
      throw this.lost ?? new SqlloadError("SL900", `the reader of ${this.table.display} is closed`);
    }
    return release;
  }

  /**
   * The COPY statements of a read, run one after the other (COPY takes no parameters, so bounds
   * are quoted literals). An ordered read that includes NULLs reads them first with a statement
   * of their own: `ORDER BY c NULLS FIRST` cannot use a plain (`NULLS LAST`) index and would sort
   * the whole table, while `ORDER BY c` over the non-NULL rows walks the index.
   */
  copyStatements(request: Pick<ReadRequest, "range" | "includeNulls" | "ordered">): string[] {
    const { cursor } = this.table;
    const select = `SELECT ${this.table.columns.map(selectExpression).join(", ")} FROM ${this.table.sql}`;
    const copy = (sql: string) => `COPY (${sql}) TO STDOUT (FORMAT binary)`;
    if (!cursor) {
      if (request.range.from || request.range.to) {
        throw new SqlloadError("SL900", `a cursor range was asked of ${this.table.display}, which has no cursor column`);
      }
      return [copy(select)];
    }
    const literal = (v: CursorValue) => cursorLiteral(v, cursor.column, cursor.kind);
    if (!request.ordered) {
      const where = rangeCondition(cursor.expression, request.range, request.includeNulls, literal);
      return [copy(where ? `${select} WHERE ${where}` : select)];
    }
    const values = `${select} WHERE ${rangeCondition(cursor.expression, request.range, false, literal)} ORDER BY ${cursor.expression}`;
    const nulls = request.includeNulls && cursor.column.nullable ? [copy(`${select} WHERE ${cursor.expression} IS NULL`)] : [];
    return [...nulls, copy(values)];
  }

  read(request: ReadRequest): AsyncIterable<SourceItem> {
    return this.items(request);
  }

  private async *items(request: ReadRequest): AsyncGenerator<SourceItem> {
    const release = await this.turn();
    this.reading = true;
    const { cursor, columns } = this.table;
    const wires = columns.map(readWire);
    const schema = columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable }));
    let stream: ReturnType<typeof copyTo> | undefined;
    const onAbort = () => stream?.destroy(new SqlloadError("SL307", `reading ${this.table.display} was interrupted`));
    request.signal.addEventListener("abort", onAbort, { once: true });
    const commitPoints = request.ordered && cursor !== undefined;
    let last: CursorValue | null | undefined;
    let bytesSinceLast = 0;
    let completed = false;
    // A commit point goes where two neighbouring rows have distinct cursor values: between
    // batches when the boundary is one, else at the first change inside the batch (splitting it),
    // so rows of one value never straddle a commit and every batch with a change offers a point.
    const emit = function* (batch: RecordBatch, bytes: number): Generator<SourceItem> {
      if (!commitPoints || batch.length === 0) {
        yield { kind: "batch", batch };
        return;
      }
      const at = (r: number) => cursorAt(batch, cursor.index, r);
      let split = -1;
      if (last !== undefined && !cursorEquals(last, at(0))) split = 0;
      else {
        let previous = at(0);
        for (let r = 1; r < batch.length; r++) {
          const v = at(r);
          if (!cursorEquals(previous, v)) {
            split = r;
            break;
          }
          previous = v;
        }
      }
      last = at(batch.length - 1);
      if (split < 0) {
        bytesSinceLast += bytes;
        yield { kind: "batch", batch };
        return;
      }
      const headBytes = Math.round((bytes * split) / batch.length);
      if (split > 0) yield { kind: "batch", batch: sliceBatch(batch, 0, split) };
      yield { kind: "commit-point", bytesSinceLast: bytesSinceLast + headBytes };
      bytesSinceLast = bytes - headBytes;
      yield { kind: "batch", batch: split > 0 ? sliceBatch(batch, split, batch.length) : batch };
    };
    try {
      for (const sql of this.copyStatements(request)) {
        const decoder = new CopyBinaryDecoder(schema, wires);
        // A deep buffer lets the server keep sending while a batch is being written elsewhere.
        stream = this.client.query(copyTo(sql, { highWaterMark: 1 << 20 }));
        if (request.signal.aborted) onAbort();
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          for (const { batch, bytes, raw } of decoder.push(chunk))
            yield* emit(attachRawCopy(batch, { parts: raw, wires }), bytes);
        }
        const rest = decoder.end();
        if (rest) yield* emit(attachRawCopy(rest.batch, { parts: rest.raw, wires }), rest.bytes);
      }
      completed = true;
    } catch (error) {
      const mapped = request.signal.aborted
        ? new SqlloadError("SL307", `reading ${this.table.display} was interrupted`, { cause: error })
        : toSqlloadError(error, this.context(`reading ${this.table.display}`));
      throw mapped;
    } finally {
      request.signal.removeEventListener("abort", onAbort);
      this.reading = false;
      if (!completed) {
        // A COPY cut short leaves the connection mid-stream: it cannot serve another read, and
        // the snapshot goes with it.
        this.lost = new SqlloadError("SL304", `the read snapshot of ${this.table.display} was lost when a read stopped early`, {
          retryable: true,
          hint: "Run again: the table's committed windows are kept.",
        });
        stream?.destroy();
        this.release(this.lost);
      }
      release();
    }
  }

  async maxCursor(): Promise<CursorValue | null> {
    return this.aggregate("max", undefined);
  }

  async firstCursorAtOrAfter(value: CursorValue): Promise<CursorValue | null> {
    return this.aggregate("min", value);
  }

  private async aggregate(fn: "max" | "min", atOrAfter: CursorValue | undefined): Promise<CursorValue | null> {
    const { cursor } = this.table;
    if (!cursor) throw new SqlloadError("SL900", `${this.table.display} has no cursor column`);
    const release = await this.turn();
    try {
      const where = atOrAfter ? ` WHERE ${cursor.expression} >= $1::${cursorCast(cursor.column, cursor.kind)}` : "";
      const sql = `SELECT ${cursorValueSql("m", cursor.column, cursor.kind)} AS v FROM (SELECT ${fn}(${cursor.expression}) AS m FROM ${this.table.sql}${where}) s`;
      const result = await this.client.query<{ v: string | null }>(sql, atOrAfter ? [cursorParameter(atOrAfter)] : []);
      return parseCursorText(result.rows[0]?.v ?? null, cursor.kind);
    } catch (error) {
      throw toSqlloadError(error, this.context(`reading the ${fn}imum cursor of ${this.table.display}`));
    } finally {
      release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.onClose();
    // A read still being consumed is cut off: its COPY cannot be finished from here.
    if (this.reading) {
      this.closed = true;
      this.lost ??= new SqlloadError("SL304", `the reader of ${this.table.display} was closed during a read`);
      this.release(this.lost);
      return;
    }
    const release = await this.turn().catch(() => undefined);
    this.closed = true;
    if (!this.lost) {
      try {
        await this.client.query("COMMIT");
        this.release();
      } catch (error) {
        this.release(error as Error);
      }
    }
    release?.();
  }
}
