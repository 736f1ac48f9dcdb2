import type { DuckDBType } from "@duckdb/node-api";
import type duckdb from "@duckdb/node-bindings";
import { type ColumnVector, formatScaled, parseScaled, type Utf8Fields } from "@sqlload/core";
import { bindings, DuckDBTypeId } from "./duckdb-client.js";
import { scaleDecimal } from "./duckdb-values.js";

/**
 * Writes rows `start .. start + rows` of a batch column into a DuckDB vector as whole blocks of
 * memory: one `copy_data_to_vector` for the values and one for the validity mask, instead of one
 * call (and often one value object) per row through the client's `setItem`. Fixed-width columns
 * are copied straight from the batch's typed arrays; decimals are scaled into the integer width
 * DuckDB stores them in without going through bigints; text is written into DuckDB's 16-byte
 * string slots, inline when it fits 12 bytes, else one native call for that string.
 *
 * The layouts written here (little-endian fixed-width arrays, `duckdb_hugeint`, the inline form
 * of `duckdb_string_t`, the validity bitmask) are those of DuckDB's C API header, which the
 * client's own vectors also rely on. `@duckdb/node-api` and `@duckdb/node-bindings` are pinned to
 * one version, and duckdb-column-copy.integration.test.ts reads back every layout written here,
 * so an upgrade that changes one fails there first.
 *
 * Returns false, having written nothing, when the column is not one of those layouts (or its
 * storage is not the typed array the batch contract names); the caller then fills the vector
 * value by value.
 */
export function copyColumn(
  vector: duckdb.Vector,
  type: DuckDBType,
  source: ColumnVector | undefined,
  start: number,
  rows: number,
  fail: FailValue,
): boolean {
  if (!source) {
    writeValidity(vector, undefined, start, rows, true);
    return true;
  }
  if (type.typeId === DuckDBTypeId.VARCHAR) {
    const bytes = source.utf8?.();
    if (bytes) {
      copyUtf8(vector, bytes, start, rows);
      writeValidity(vector, nullsIn(bytes, start, rows), 0, rows, false);
      return true;
    }
  }
  if (type.typeId === DuckDBTypeId.DECIMAL) {
    const scaled = source.scaled?.((type as DecimalType).scale);
    if (scaled) {
      copyScaled(vector, type as DecimalType, scaled, start, rows, fail);
      writeValidity(vector, source.nulls, start, rows, false);
      return true;
    }
  }
  const values = source.values as unknown;
  switch (type.typeId) {
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ:
      if (!(values instanceof BigInt64Array)) return false;
      copyTyped(vector, values, start, rows);
      break;
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.DATE:
      if (!(values instanceof Int32Array)) return false;
      copyTyped(vector, values, start, rows);
      break;
    case DuckDBTypeId.DOUBLE:
      if (!(values instanceof Float64Array)) return false;
      copyTyped(vector, values, start, rows);
      break;
    case DuckDBTypeId.BOOLEAN:
      if (!(values instanceof Uint8Array) || bindings.sizeof_bool !== 1) return false;
      copyTyped(vector, values, start, rows);
      break;
    case DuckDBTypeId.VARCHAR:
      if (!Array.isArray(values)) return false;
      copyStrings(vector, values, source.nulls, start, rows);
      break;
    case DuckDBTypeId.DECIMAL:
      if (!Array.isArray(values)) return false;
      copyDecimals(vector, type as DecimalType, values, source.nulls, start, rows, fail);
      break;
    default:
      return false;
  }
  writeValidity(vector, source.nulls, start, rows, false);
  return true;
}

/** Reports a value that does not fit its column (row index within the batch, the cause); throws. */
export type FailValue = (row: number, cause: Error) => never;

interface DecimalType {
  readonly width: number;
  readonly scale: number;
}

function copyTyped(
  vector: duckdb.Vector,
  values: BigInt64Array | Int32Array | Float64Array | Uint8Array,
  start: number,
  rows: number,
) {
  const size = values.BYTES_PER_ELEMENT;
  bindings.copy_data_to_vector(vector, 0, values.buffer as ArrayBuffer, values.byteOffset + start * size, rows * size);
}

/** The validity mask: one bit per row, set when the row is valid, in little-endian 64-bit words. */
function writeValidity(vector: duckdb.Vector, nulls: Uint8Array | undefined, start: number, rows: number, allNull: boolean) {
  let mask: Uint8Array | undefined;
  if (allNull) mask = new Uint8Array(Math.ceil(rows / 64) * 8);
  else if (nulls !== undefined) {
    for (let i = 0; i < rows; i++) {
      if (nulls[start + i] !== 1) continue;
      if (!mask) mask = new Uint8Array(Math.ceil(rows / 64) * 8).fill(0xff);
      (mask[i >> 3] as number) &= ~(1 << (i & 7));
    }
  }
  if (!mask) return;
  bindings.vector_ensure_validity_writable(vector);
  bindings.copy_data_to_vector_validity(vector, 0, mask.buffer as ArrayBuffer, 0, mask.byteLength);
}

const SLOT = 16;
const INLINE = 12;
const slots = new Uint8Array(SLOT * bindings.vector_size());
const slotWords = new DataView(slots.buffer);
const encoder = new TextEncoder();
const scratch = new Uint8Array(INLINE * 3);

/**
 * A string of at most 12 UTF-8 bytes lives inside its slot (length, then the bytes, zero padded:
 * DuckDB compares slots word by word); a longer one needs DuckDB to own a copy, so it is assigned
 * through the client after the slots are copied.
 */
function copyStrings(vector: duckdb.Vector, values: unknown[], nulls: Uint8Array | undefined, start: number, rows: number) {
  slots.fill(0, 0, rows * SLOT);
  let long: number[] | undefined;
  for (let i = 0; i < rows; i++) {
    const row = start + i;
    if (nulls !== undefined && nulls[row] === 1) continue;
    const raw = values[row];
    const text = typeof raw === "string" ? raw : String(raw);
    const length = inlineLength(text, i * SLOT);
    if (length < 0) (long ??= []).push(i);
    else slotWords.setUint32(i * SLOT, length, true);
  }
  bindings.copy_data_to_vector(vector, 0, slots.buffer as ArrayBuffer, 0, rows * SLOT);
  if (long) {
    for (const i of long) {
      const raw = values[start + i];
      bindings.vector_assign_string_element(vector, i, typeof raw === "string" ? raw : String(raw));
    }
  }
}

/**
 * The same slots from text's UTF-8 bytes as the source read them: a short string's bytes are
 * copied into its slot, a longer one is handed to DuckDB as a view of them, and no string is made.
 */
function copyUtf8(vector: duckdb.Vector, fields: Utf8Fields, start: number, rows: number) {
  const { buffers, buffer, offset, length } = fields;
  slots.fill(0, 0, rows * SLOT);
  let long: number[] | undefined;
  for (let i = 0; i < rows; i++) {
    const row = start + i;
    const len = length[row] as number;
    if (len < 0) continue;
    if (len > INLINE) {
      (long ??= []).push(i);
      continue;
    }
    const bytes = buffers[buffer[row] as number] as Uint8Array;
    const from = offset[row] as number;
    const at = i * SLOT;
    slotWords.setUint32(at, len, true);
    for (let b = 0; b < len; b++) slots[at + 4 + b] = bytes[from + b] as number;
  }
  bindings.copy_data_to_vector(vector, 0, slots.buffer as ArrayBuffer, 0, rows * SLOT);
  if (long) {
    for (const i of long) {
      const row = start + i;
      const bytes = buffers[buffer[row] as number] as Uint8Array;
      const from = offset[row] as number;
      bindings.vector_assign_string_element_len(vector, i, bytes.subarray(from, from + (length[row] as number)));
    }
  }
}

/** Rows `start .. start + rows` NULL in a bytes column, as a mask from 0, or undefined when none is. */
function nullsIn(fields: Utf8Fields, start: number, rows: number): Uint8Array | undefined {
  let nulls: Uint8Array | undefined;
  for (let i = 0; i < rows; i++) {
    if ((fields.length[start + i] as number) >= 0) continue;
    nulls ??= new Uint8Array(rows);
    nulls[i] = 1;
  }
  return nulls;
}

/** Writes `text` inline at `offset` and returns its byte length, or -1 when it does not fit inline. */
function inlineLength(text: string, offset: number): number {
  const n = text.length;
  if (n > INLINE) return -1;
  let i = 0;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) break;
    slots[offset + 4 + i] = c;
  }
  if (i === n) return n;
  const { read, written } = encoder.encodeInto(text, scratch);
  if (read < n || written > INLINE) {
    slots.fill(0, offset + 4, offset + SLOT);
    return -1;
  }
  slots.set(scratch.subarray(0, written), offset + 4);
  return written;
}

// DuckDB stores DECIMAL(w, s) as a 16-, 32-, 64- or 128-bit integer by width.
const decimals = new ArrayBuffer(16 * bindings.vector_size());
const decimal16 = new Int16Array(decimals);
const decimal32 = new Int32Array(decimals);
const decimal64Low = new Uint32Array(decimals);
const decimal128 = new BigInt64Array(decimals);

/**
 * The bytes DuckDB stores a DECIMAL of `width` digits in, and the magnitude an integer in a double
 * must stay under to fit it (10^38 is a double too; past 2^53, where doubles skip integers, only
 * the bigint path goes).
 */
function decimalLayout(width: number): { bytes: 2 | 4 | 8 | 16; limit: number } {
  const bytes = width <= 4 ? 2 : width <= 9 ? 4 : width <= 18 ? 8 : 16;
  return { bytes, limit: 10 ** width };
}

function copyDecimals(
  vector: duckdb.Vector,
  type: DecimalType,
  values: unknown[],
  nulls: Uint8Array | undefined,
  start: number,
  rows: number,
  fail: FailValue,
) {
  const { width, scale } = type;
  const { bytes, limit } = decimalLayout(width);
  const bigLimit = 10n ** BigInt(width);
  for (let i = 0; i < rows; i++) {
    const row = start + i;
    let scaled = 0;
    let big: bigint | undefined;
    if (nulls === undefined || nulls[row] !== 1) {
      const raw = values[row];
      const text = typeof raw === "string" ? raw : String(raw);
      scaled = parseScaled(text, scale);
      if (Number.isNaN(scaled)) {
        big = scaleExact(text, scale, row, fail);
        if (big >= bigLimit || big <= -bigLimit) fail(row, new RangeError(`${text} does not fit DECIMAL(${width},${scale})`));
        scaled = 0;
      } else if (scaled >= limit || scaled <= -limit) {
        fail(row, new RangeError(`${text} does not fit DECIMAL(${width},${scale})`));
      }
    }
    if (big === undefined) putScaled(i, scaled, bytes);
    else if (bytes === 16) {
      decimal128[2 * i] = BigInt.asIntN(64, big);
      decimal128[2 * i + 1] = big >> 64n;
    } else if (bytes === 8) decimal128[i] = big;
    else putScaled(i, Number(big), bytes);
  }
  bindings.copy_data_to_vector(vector, 0, decimals, 0, rows * bytes);
}

/** Decimals the source gave as scaled integers (ColumnVector.scaled): no string parsed, each checked against the width. */
function copyScaled(
  vector: duckdb.Vector,
  type: DecimalType,
  scaled: Float64Array,
  start: number,
  rows: number,
  fail: FailValue,
) {
  const { width, scale } = type;
  const { bytes, limit } = decimalLayout(width);
  for (let i = 0; i < rows; i++) {
    let value = scaled[start + i] as number;
    if (Number.isNaN(value))
      value = 0; // NULL: the validity mask says so
    else if (value >= limit || value <= -limit) {
      fail(start + i, new RangeError(`${formatScaled(value, scale)} does not fit DECIMAL(${width},${scale})`));
    }
    putScaled(i, value, bytes);
  }
  bindings.copy_data_to_vector(vector, 0, decimals, 0, rows * bytes);
}

/**
 * Writes slot `i` of the decimal scratch from an integer under 2^53 in magnitude, in the layout of a
 * DECIMAL stored in `bytes`: two's complement in 32-bit words, the low one modulo 2^32, the next
 * (signed) by floor division, the upper half of a 128-bit value the sign.
 */
function putScaled(i: number, value: number, bytes: 2 | 4 | 8 | 16): void {
  if (bytes === 2) decimal16[i] = value;
  else if (bytes === 4) decimal32[i] = value;
  else {
    const words = bytes / 4;
    decimal64Low[words * i] = value;
    decimal32[words * i + 1] = Math.floor(value / 4294967296);
    if (bytes === 16) {
      const sign = value < 0 ? -1 : 0;
      decimal32[words * i + 2] = sign;
      decimal32[words * i + 3] = sign;
    }
  }
}

function scaleExact(text: string, scale: number, row: number, fail: FailValue): bigint {
  try {
    return scaleDecimal(text, scale);
  } catch (cause) {
    return fail(row, cause as Error);
  }
}
