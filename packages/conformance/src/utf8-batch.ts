import type { ColumnVector, RecordBatch, Utf8Fields } from "@sqlload/core";
import { scaledColumn } from "./scaled-decimals.js";

const encoder = new TextEncoder();
/** Bytes laid between fields: not UTF-8, so a target that reads past a field's end writes garbage. */
const FILLER = Uint8Array.of(0xff, 0xfe, 0x00);

/**
 * The batch with each text and json column given also as its UTF-8 bytes (ColumnVector.utf8), and
 * each decimal column also as scaled integers (ColumnVector.scaled), as the Postgres source gives
 * them: rows alternate between two buffers, with other bytes before and between the fields, so a
 * target writing the bytes must honour every buffer index, offset and length. `live` guards each
 * read (see expiringBatch).
 */
export function withUtf8(batch: RecordBatch, live: <T>(value: T) => T = (value) => value): RecordBatch {
  return utf8Batch(batch, live).batch;
}

/**
 * withUtf8, and the buffers its bytes lie in and the scaled decimals it gave: expiringBatch
 * overwrites them on expiry, as the Postgres source's socket does, so a target that kept a view of
 * them past its write stores garbage.
 */
export function utf8Batch(
  batch: RecordBatch,
  live: <T>(value: T) => T,
): { batch: RecordBatch; buffers: readonly Uint8Array[]; scaled: readonly Float64Array[] } {
  const buffers: Uint8Array[] = [];
  const scaled: Float64Array[] = [];
  const columns = batch.columns.map((column, c): ColumnVector => {
    const kind = batch.schema[c]?.type.kind;
    if (kind === "decimal") {
      const byScale = new Map<number, Float64Array | undefined>();
      return {
        get values() {
          return live(column.values);
        },
        get nulls() {
          return live(column.nulls);
        },
        scaled: (scale) => {
          if (!byScale.has(scale)) {
            const values = scaledColumn(column, batch.length, scale);
            if (values) scaled.push(values);
            byScale.set(scale, values);
          }
          return live(byScale.get(scale));
        },
      };
    }
    if (kind !== "text" && kind !== "json") return column;
    const fields = spread(column, batch.length);
    buffers.push(...fields.buffers);
    return {
      get values() {
        return live(column.values);
      },
      get nulls() {
        return live(column.nulls);
      },
      utf8: () => live(fields),
    };
  });
  return { batch: { schema: batch.schema, length: batch.length, columns }, buffers, scaled };
}

function spread(column: ColumnVector, n: number): Utf8Fields {
  // Each buffer as its pieces and their total, joined once at the end: a field may be megabytes.
  const parts: { pieces: Uint8Array[]; size: number }[] = [
    { pieces: [FILLER], size: FILLER.length },
    { pieces: [FILLER, FILLER], size: 2 * FILLER.length },
  ];
  const buffer = new Int32Array(n);
  const offset = new Int32Array(n);
  const length = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    if (column.nulls?.[r] === 1) {
      length[r] = -1;
      continue;
    }
    const k = r % 2;
    const part = parts[k] as (typeof parts)[number];
    const bytes = encoder.encode(String(column.values[r]));
    buffer[r] = k;
    offset[r] = part.size;
    length[r] = bytes.length;
    part.pieces.push(bytes, FILLER);
    part.size += bytes.length + FILLER.length;
  }
  return { buffers: parts.map(({ pieces, size }) => Buffer.concat(pieces, size)), buffer, offset, length };
}
