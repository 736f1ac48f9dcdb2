import { type ColumnVector, type RecordBatch, sliceBatch } from "../connector/record-batch.js";
import type { SourceItem } from "../connector/source.js";

const NO_ROW = Symbol("no row");
const NULL_CURSOR = Symbol("null");

/** A cell's cursor as a value `===` compares: storage of cursor kinds is bigint, number or string. */
function cursorKey(vector: ColumnVector, row: number): unknown {
  return vector.nulls?.[row] === 1 ? NULL_CURSOR : vector.values[row];
}

/**
 * Where a read in cursor order may commit (SPEC §6): only between two rows whose cursor values
 * differ, so the rows of one value never straddle two commits and a rerun from the committed
 * maximum (with `>`) loses none of them.
 *
 * Feed it the batches in cursor order; it passes them on with a `commit-point` before each batch
 * whose first value differs from the previous batch's last. When a batch continues the previous
 * value instead, the point goes at the batch's last change of value, splitting it there, so a tie
 * across a boundary does not cost the batch its point. One point per batch is enough: the runner
 * commits at the first point after about `CHUNK_BYTES`, and a batch is far smaller than that. A
 * batch that only continues one value offers no point, so a long run of one value is never cut.
 */
export class CommitPoints {
  private last: unknown = NO_ROW;
  private bytesSinceLast = 0;
  private rowsSinceLast = 0;

  /** @param cursorIndex the cursor column's position in every batch's schema */
  constructor(private readonly cursorIndex: number) {}

  /**
   * The items for one batch: the batch (maybe in two slices) and the commit point between them.
   * `bytes` is what the batch weighs on the wire or in memory; a split shares it by rows.
   */
  *batch(batch: RecordBatch, bytes: number): Generator<SourceItem> {
    if (batch.length === 0) return;
    const vector = batch.columns[this.cursorIndex] as ColumnVector;
    let split = -1;
    if (this.last !== NO_ROW) split = this.last !== cursorKey(vector, 0) ? 0 : this.lastChange(vector, batch.length);
    this.last = cursorKey(vector, batch.length - 1);
    if (split < 0 || (split === 0 && this.rowsSinceLast === 0)) {
      this.add(batch.length, bytes);
      yield { kind: "batch", batch };
      return;
    }
    const headBytes = Math.round((bytes * split) / batch.length);
    if (split > 0) {
      this.add(split, headBytes);
      yield { kind: "batch", batch: sliceBatch(batch, 0, split) };
    }
    yield* this.point();
    this.add(batch.length - split, bytes - headBytes);
    yield { kind: "batch", batch: split > 0 ? sliceBatch(batch, split, batch.length) : batch };
  }

  /**
   * A commit point the caller knows is safe (the next rows start a new cursor value, such as a
   * partition or a file group of its own); `required` makes the runner commit there whatever the
   * bytes. Nothing is yielded when no row came since the last point, unless it is required.
   */
  *point(options: { readonly required?: boolean } = {}): Generator<SourceItem> {
    if (this.rowsSinceLast === 0 && !options.required) return;
    yield options.required
      ? { kind: "commit-point", bytesSinceLast: this.bytesSinceLast, required: true }
      : { kind: "commit-point", bytesSinceLast: this.bytesSinceLast };
    this.bytesSinceLast = 0;
    this.rowsSinceLast = 0;
  }

  private add(rows: number, bytes: number): void {
    this.rowsSinceLast += rows;
    this.bytesSinceLast += bytes;
  }

  /** The first row of the batch's last run of one value; -1 when the batch holds one value. */
  private lastChange(vector: ColumnVector, length: number): number {
    const last = cursorKey(vector, length - 1);
    for (let r = length - 2; r >= 0; r--) if (cursorKey(vector, r) !== last) return r + 1;
    return -1;
  }
}
