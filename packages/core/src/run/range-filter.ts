import { cursorAt, filterBatch, type RecordBatch } from "../connector/record-batch.js";
import type { CursorRange } from "../connector/source.js";
import { type CursorValue, compareCursor } from "../cursor/cursor-value.js";

/** Whether a cursor value lies in a range (text by code point). */
export function inCursorRange(value: CursorValue, range: CursorRange): boolean {
  if (range.from) {
    const c = compareCursor(value, range.from);
    if (range.fromInclusive === false ? c <= 0 : c < 0) return false;
  }
  return !range.to || compareCursor(value, range.to) < 0;
}

/** Whether some value of `[min, max]` (both inclusive: a file's or a batch's statistics) may lie in the range. */
export function overlapsCursorRange(min: CursorValue, max: CursorValue, range: CursorRange): boolean {
  if (range.from) {
    const c = compareCursor(max, range.from);
    if (range.fromInclusive === false ? c <= 0 : c < 0) return false;
  }
  return !range.to || compareCursor(min, range.to) < 0;
}

/** Whether every value of `[min, max]` (both inclusive) lies in the range. */
export function spanInCursorRange(min: CursorValue, max: CursorValue, range: CursorRange): boolean {
  return inCursorRange(min, range) && inCursorRange(max, range);
}

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
  for (let i = 0; i < batch.length; i++) {
    const value = cursorAt(batch, cursorIndex, i);
    const ok = value === null ? includeNulls : inCursorRange(value, range);
    keep[i] = ok ? 1 : 0;
    if (!ok) dropped++;
  }
  return { batch: dropped === 0 ? batch : filterBatch(batch, keep), dropped };
}
