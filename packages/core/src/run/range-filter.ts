import { cursorAt, filterBatch, type RecordBatch } from "../connector/record-batch.js";
import type { CursorRange } from "../connector/source.js";
import { compareCursor } from "../cursor/cursor-value.js";

/**
 * Drops rows outside the read range (text compared by code point), and NULL cursors unless the
 * read includes them. Table functions may ignore the range they were given; this keeps them from
 * duplicating rows. Returns the kept batch and how many rows were dropped.
 */
export function keepInRange(
  batch: RecordBatch,
  cursorIndex: number,
  range: CursorRange,
  includeNulls: boolean,
): { batch: RecordBatch; dropped: number } {
  if (batch.length === 0) return { batch, dropped: 0 };
  const keep = new Uint8Array(batch.length);
  let dropped = 0;
  const { from, to } = range;
  const exclusive = range.fromInclusive === false;
  for (let i = 0; i < batch.length; i++) {
    const value = cursorAt(batch, cursorIndex, i);
    let ok: boolean;
    if (value === null) ok = includeNulls;
    else {
      ok = true;
      if (from) {
        const c = compareCursor(value, from);
        ok = exclusive ? c > 0 : c >= 0;
      }
      if (ok && to) ok = compareCursor(value, to) < 0;
    }
    keep[i] = ok ? 1 : 0;
    if (!ok) dropped++;
  }
  return { batch: dropped === 0 ? batch : filterBatch(batch, keep), dropped };
}
