import type { ColumnVector, RecordBatch, Utf8Fields } from "@sqlload/core";

const encoder = new TextEncoder();
/** Bytes laid between fields: not UTF-8, so a target that reads past a field's end writes garbage. */
const FILLER = [0xff, 0xfe, 0x00];

/**
 * The batch with each text and json column given also as its UTF-8 bytes (ColumnVector.utf8), as
 * the Postgres source gives them: rows alternate between two buffers, with other bytes before and
 * between the fields, so a target writing the bytes must honour every buffer index, offset and
 * length. `live` guards each read (see expiringBatch).
 */
export function withUtf8(batch: RecordBatch, live: <T>(value: T) => T = (value) => value): RecordBatch {
  const columns = batch.columns.map((column, c): ColumnVector => {
    const kind = batch.schema[c]?.type.kind;
    if (kind !== "text" && kind !== "json") return column;
    const fields = spread(column, batch.length);
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
  return { schema: batch.schema, length: batch.length, columns };
}

function spread(column: ColumnVector, n: number): Utf8Fields {
  const parts: number[][] = [[...FILLER], [...FILLER, ...FILLER]];
  const buffer = new Int32Array(n);
  const offset = new Int32Array(n);
  const length = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    if (column.nulls?.[r] === 1) {
      length[r] = -1;
      continue;
    }
    const k = r % 2;
    const part = parts[k] as number[];
    const bytes = encoder.encode(String(column.values[r]));
    buffer[r] = k;
    offset[r] = part.length;
    length[r] = bytes.length;
    part.push(...bytes, ...FILLER);
  }
  return { buffers: parts.map((part) => Uint8Array.from(part)), buffer, offset, length };
}
