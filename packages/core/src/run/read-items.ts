import type { Column } from "../connector/logical-types.js";
import { columnMaxCursor, type RecordBatch, selectColumns } from "../connector/record-batch.js";
import type { CursorRange, ReadRequest, SourceItem, SourceTableReader } from "../connector/source.js";
import { type CursorValue, maxCursor } from "../cursor/cursor-value.js";
import { asSqlloadError, SqlloadError } from "../errors/sqlload-error.js";
import { inCursorRange, keepInRange } from "./range-filter.js";

export function interruptedError(table: string): SqlloadError {
  return new SqlloadError("SL307", `load of ${table} was interrupted`, { table });
}

/**
 * The items of one read, stopping with SL307 as soon as the run is interrupted: a slow source
 * must not hold a rollback up (its pending read is abandoned and left to clean up in the
 * background). Any other failure of the source becomes SL304 naming what was read.
 */
export async function* readItems(
  reader: SourceTableReader,
  request: ReadRequest,
  names: { readonly table: string; readonly source: string },
): AsyncGenerator<SourceItem, void, undefined> {
  const { signal } = request;
  const iterator = reader.read(request)[Symbol.asyncIterator]();
  // Stopped early by its consumer (an unordered read past a commit's bytes), the source's own read
  // stops too, and cleans up, before anything else is asked of the reader.
  let finished = false;
  try {
    for (;;) {
      if (signal.aborted) throw interruptedError(names.table);
      let onAbort: (() => void) | undefined;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(interruptedError(names.table));
        signal.addEventListener("abort", onAbort, { once: true });
      });
      let next: IteratorResult<SourceItem>;
      try {
        next = await Promise.race([iterator.next(), aborted]);
      } catch (error) {
        finished = true;
        if (signal.aborted) {
          void iterator.return?.().catch(() => {});
          throw error;
        }
        throw asSqlloadError(error, "SL304", `reading ${names.source} failed`, { table: names.table });
      } finally {
        if (onAbort) signal.removeEventListener("abort", onAbort);
      }
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!finished && !signal.aborted) await iterator.return?.().catch(() => {});
  }
}

/** A batch as the target gets it: configured columns only, rows inside the read range. */
export interface KeptBatch {
  readonly batch: RecordBatch;
  /** Its largest cursor value; null without a cursor or when every cursor is NULL. */
  readonly max: CursorValue | null;
}

/**
 * Shapes what a source yields for the target: keeps the configured `columns`, and drops rows
 * outside the read range unless the source reads exact ranges (a table function may ignore the
 * range it was given; this keeps it from duplicating rows). Counts what it dropped.
 */
export class BatchFilter {
  dropped = 0;

  constructor(
    private readonly table: string,
    private readonly wanted: readonly string[] | undefined,
    private readonly cursorColumn: string | undefined,
    private readonly exactRange: boolean,
  ) {}

  /** The configured columns of a schema, in its order. */
  columnsOf(columns: readonly Column[] | undefined): readonly Column[] | undefined {
    const wanted = this.wanted;
    return wanted && columns ? columns.filter((c) => wanted.includes(c.name)) : columns;
  }

  keep(raw: RecordBatch, pass: { readonly range: CursorRange; readonly includeNulls: boolean }): KeptBatch {
    let batch = this.project(raw);
    const column = this.cursorColumn;
    if (column === undefined) return { batch, max: null };
    const index = batch.schema.findIndex((c) => c.name === column);
    if (index < 0) {
      throw new SqlloadError("SL200", `table ${this.table}: cursor column "${column}" is not in the rows read`, {
        table: this.table,
      });
    }
    if (!this.exactRange) {
      const kept = keepInRange(batch, index, pass.range, pass.includeNulls);
      batch = kept.batch;
      this.dropped += kept.dropped;
    }
    return { batch, max: batch.length === 0 ? null : columnMaxCursor(batch, index) };
  }

  private project(batch: RecordBatch): RecordBatch {
    const wanted = this.wanted;
    if (!wanted || (batch.schema.length === wanted.length && batch.schema.every((c, i) => c.name === wanted[i]))) return batch;
    return selectColumns(
      batch,
      wanted.filter((name) => batch.schema.some((c) => c.name === name)),
    );
  }
}

/**
 * The target's maximum of the cursor as the load moves it: what each commit records as the
 * data's cursor. Starts at the target's maximum when planned; a range delete that covers it
 * forgets it, since those rows are being replaced.
 */
export class ReadPosition {
  constructor(private current: CursorValue | null) {}

  get value(): CursorValue | null {
    return this.current;
  }

  advance(max: CursorValue | null): void {
    this.current = maxCursor(this.current, max);
  }

  /** Back to where the last commit left it: what a unit rolled back had moved is forgotten. */
  reset(to: CursorValue | null): void {
    this.current = to;
  }

  forgetIfIn(range: CursorRange): void {
    if (this.current && inCursorRange(this.current, range)) this.current = null;
  }
}
