import { LITTLE_ENDIAN } from "./little-endian.js";
import type { LogicalType } from "./logical-types.js";
import type { ColumnVector } from "./record-batch.js";
import { allocate, HYPHENATED_UUID, INT64_MAX, INT64_MIN, intLimit, toStorageValue } from "./storage-value.js";

const TWO_32 = 4294967296;
/** Milliseconds whose microseconds a double holds exactly (about ±285 years from 1970). */
const SAFE_MS = Math.floor(Number.MAX_SAFE_INTEGER / 1000);

/**
 * One column of a batch being built: its storage (see ColumnVector) and how a JavaScript value is
 * stored into it. The values a table function most often yields take a path of their own: a
 * number into a 64-bit column and a Date into a timestamp are written as two 32-bit halves, with
 * no BigInt made per value, and a string, a number or a boolean of the column's own kind is stored
 * as it is. Everything else converts through `toStorageValue`, so what fits and what is refused is
 * the same either way.
 */
export class ColumnStore {
  values: ColumnVector["values"];
  /** The 64-bit storage seen as 32-bit words, for the paths above (int64, timestamps). */
  private words: Int32Array | undefined;
  private readonly store: (this: ColumnStore, i: number, raw: unknown) => boolean;

  constructor(
    readonly type: LogicalType,
    private readonly capacity: number,
  ) {
    this.values = allocate(type, capacity);
    this.store = storeFor(type);
    this.words = wordsOf(this.values);
  }

  /** Stores `raw` (not null) at row `i`; false, storing nothing, when it does not fit the column. */
  set(i: number, raw: unknown): boolean {
    return this.store(i, raw);
  }

  /** The storage so far, and a fresh one for the next batch. */
  take(): ColumnVector["values"] {
    const values = this.values;
    this.values = allocate(this.type, this.capacity);
    this.words = wordsOf(this.values);
    return values;
  }

  /** Writes an integer under 2^53 in magnitude at row `i` of 64-bit storage. */
  setSafeInteger(i: number, value: number): void {
    const words = this.words as Int32Array;
    const low = value >>> 0;
    const high = Math.floor(value / TWO_32) | 0;
    words[LITTLE_ENDIAN ? 2 * i : 2 * i + 1] = low;
    words[LITTLE_ENDIAN ? 2 * i + 1 : 2 * i] = high;
  }

  convert(i: number, raw: unknown): boolean {
    const value = toStorageValue(this.type, raw);
    if (value === undefined) return false;
    (this.values as unknown[])[i] = value;
    return true;
  }
}

function wordsOf(values: ColumnVector["values"]): Int32Array | undefined {
  return values instanceof BigInt64Array ? new Int32Array(values.buffer, values.byteOffset, values.length * 2) : undefined;
}

function storeFor(type: LogicalType): (this: ColumnStore, i: number, raw: unknown) => boolean {
  switch (type.kind) {
    case "int64":
      return function (i, raw) {
        if (typeof raw === "number" && Number.isSafeInteger(raw)) {
          this.setSafeInteger(i, raw);
          return true;
        }
        if (typeof raw === "bigint") {
          if (raw < INT64_MIN || raw > INT64_MAX) return false;
          (this.values as BigInt64Array)[i] = raw;
          return true;
        }
        return this.convert(i, raw);
      };
    case "timestamp":
    case "timestamptz":
      return function (i, raw) {
        if (raw instanceof Date) {
          const ms = raw.getTime();
          // A Date's time is a whole number of milliseconds (or NaN); a subclass's may not be.
          if (Number.isInteger(ms) && ms >= -SAFE_MS && ms <= SAFE_MS) {
            this.setSafeInteger(i, ms * 1000);
            return true;
          }
        }
        return this.convert(i, raw);
      };
    case "int16":
    case "int32": {
      const limit = intLimit(type.kind);
      return function (i, raw) {
        if (typeof raw === "number" && Number.isInteger(raw) && raw >= -limit && raw < limit) {
          (this.values as Int32Array)[i] = raw;
          return true;
        }
        return this.convert(i, raw);
      };
    }
    case "float32":
    case "float64":
      return function (i, raw) {
        if (typeof raw === "number") {
          (this.values as Float64Array)[i] = raw;
          return true;
        }
        return this.convert(i, raw);
      };
    case "boolean":
      return function (i, raw) {
        if (typeof raw === "boolean") {
          (this.values as Uint8Array)[i] = raw ? 1 : 0;
          return true;
        }
        return this.convert(i, raw);
      };
    case "text":
      return function (i, raw) {
        if (typeof raw === "string") {
          (this.values as unknown[])[i] = raw;
          return true;
        }
        return this.convert(i, raw);
      };
    case "uuid":
      return function (i, raw) {
        if (typeof raw === "string" && HYPHENATED_UUID.test(raw)) {
          (this.values as unknown[])[i] = raw;
          return true;
        }
        return this.convert(i, raw);
      };
    default:
      return ColumnStore.prototype.convert;
  }
}
