import type { RecordBatch } from "@sqlload/core";

/**
 * DuckDB stores a text or blob value of this many bytes or more outside its column's blocks, and
 * keeps those blocks pinned until the transaction commits: a unit writing such values needs the
 * full memory limit (duckdb-memory-settings.ts), whatever the rest of its rows are.
 */
export const OVERFLOW_TEXT_BYTES = 4096;

/** Whether any text, json or bytes value of `batch` is one DuckDB stores outside its column's blocks. */
export function hasOverflowText(batch: RecordBatch): boolean {
  return batch.schema.some((column, i) => {
    const kind = column.type.kind;
    if (kind !== "text" && kind !== "json" && kind !== "bytes") return false;
    const vector = batch.columns[i];
    if (!vector) return false;
    // The bytes as read, when the source has them: their lengths, without decoding a value.
    const fields = kind === "bytes" ? undefined : vector.utf8?.();
    if (fields) return fields.length.some((length) => length >= OVERFLOW_TEXT_BYTES);
    for (const value of vector.values) if (overflows(value)) return true;
    return false;
  });
}

function overflows(value: unknown): boolean {
  if (typeof value === "string") {
    // A UTF-16 unit is at most 3 UTF-8 bytes: most values are told by their length alone.
    if (value.length * 3 < OVERFLOW_TEXT_BYTES) return false;
    return value.length >= OVERFLOW_TEXT_BYTES || Buffer.byteLength(value) >= OVERFLOW_TEXT_BYTES;
  }
  return value instanceof Uint8Array && value.byteLength >= OVERFLOW_TEXT_BYTES;
}
