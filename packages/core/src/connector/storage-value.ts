import { parseDateDays, parseTimestampMicros } from "../cursor/cursor-value.js";
import { jsonText } from "./json-text.js";
import type { LogicalType } from "./logical-types.js";
import type { ColumnVector } from "./record-batch.js";

type Storage = "u8" | "i32" | "i64" | "f64" | "array";

/** The storage a column of `type` holds its values in (the table on ColumnVector). */
export function storageOf(type: LogicalType): Storage {
  switch (type.kind) {
    case "boolean":
      return "u8";
    case "int16":
    case "int32":
    case "date":
      return "i32";
    case "int64":
    case "time":
    case "timestamp":
    case "timestamptz":
      return "i64";
    case "float32":
    case "float64":
      return "f64";
    default:
      return "array";
  }
}

/** Fresh storage for `capacity` values of `type`. */
export function allocate(type: LogicalType, capacity: number): ColumnVector["values"] {
  switch (storageOf(type)) {
    case "u8":
      return new Uint8Array(capacity);
    case "i32":
      return new Int32Array(capacity);
    case "i64":
      return new BigInt64Array(capacity);
    case "f64":
      return new Float64Array(capacity);
    case "array":
      return new Array(capacity);
  }
}

const MS_PER_DAY = 86_400_000;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** The magnitude an int16 or int32 column's values stay under (the most negative one equals it). */
export function intLimit(kind: "int16" | "int32"): number {
  return kind === "int16" ? 32_768 : 2_147_483_648;
}

/** A uuid in its usual form, 8-4-4-4-12 hex digits, in either case: what every target reads. */
export const HYPHENATED_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A uuid as Postgres reads one: 32 hex digits in either case, a hyphen allowed after any four, braces around all. */
const UUID_INPUT = /^(?:\{[0-9a-f]{4}(?:-?[0-9a-f]{4}){7}\}|[0-9a-f]{4}(?:-?[0-9a-f]{4}){7})$/i;

/**
 * A uuid's text: as given in its usual form (so what lands where uuids are stored as text, and the
 * keys a merge matches, stay as they were), in the canonical lower-case form when given another
 * form Postgres reads (ClickHouse reads no braces, and makes NULL of them in a Nullable(UUID)
 * column), and undefined for text that is no uuid, which is refused rather than stored that way.
 */
function uuidText(text: string): string | undefined {
  if (HYPHENATED_UUID.test(text)) return text;
  if (!UUID_INPUT.test(text)) return undefined;
  const hex = text.replace(/[{}-]/g, "").toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Converts a JS value a table function or a driver gave into the column's storage value.
 * Returns `undefined` when it does not fit (the caller names row, column and value).
 */
export function toStorageValue(type: LogicalType, value: unknown): unknown {
  switch (type.kind) {
    case "boolean":
      return typeof value === "boolean" ? (value ? 1 : 0) : undefined;
    case "int16":
    case "int32": {
      const n = typeof value === "bigint" ? Number(value) : typeof value === "string" ? Number(value) : value;
      const limit = intLimit(type.kind);
      return typeof n === "number" && Number.isInteger(n) && n >= -limit && n < limit ? n : undefined;
    }
    case "int64": {
      if (typeof value === "bigint") return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
      if (typeof value === "number") return Number.isSafeInteger(value) ? BigInt(value) : undefined;
      if (typeof value === "string" && /^-?\d+$/.test(value)) return toStorageValue(type, BigInt(value));
      return undefined;
    }
    case "float32":
    case "float64": {
      if (typeof value === "number") return value;
      if (typeof value === "bigint") {
        // A double holds it exactly, or it does not fit (as an integer out of an int16's range).
        const n = Number(value);
        return Number.isFinite(n) && BigInt(n) === value ? n : undefined;
      }
      if (typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value))) return Number(value);
      return undefined;
    }
    case "decimal": {
      const text = typeof value === "number" || typeof value === "bigint" ? String(value) : value;
      return typeof text === "string" && /^-?\d+(\.\d+)?$/.test(text.trim()) ? text.trim() : undefined;
    }
    case "text":
      return typeof value === "string" ? value : undefined;
    case "uuid":
      return typeof value === "string" ? uuidText(value) : undefined;
    case "json":
      return typeof value === "string" ? value : jsonText(value);
    case "bytes":
      return value instanceof Uint8Array ? value : undefined;
    case "date": {
      if (value instanceof Date) {
        // Whole milliseconds, or NaN for an invalid Date; a subclass's getTime() may return anything.
        const ms = value.getTime();
        return Number.isSafeInteger(ms) ? Math.floor(ms / MS_PER_DAY) : undefined;
      }
      return typeof value === "string" ? parseDateDays(value) : undefined;
    }
    case "time": {
      if (typeof value === "bigint") return value;
      if (typeof value !== "string") return undefined;
      const m = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?$/.exec(value);
      if (!m) return undefined;
      const seconds = BigInt(Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0));
      return seconds * 1_000_000n + BigInt((m[4] ?? "").padEnd(6, "0"));
    }
    case "timestamp":
    case "timestamptz": {
      if (value instanceof Date) {
        // Whole milliseconds, or NaN for an invalid Date; a subclass's getTime() may return anything.
        const ms = value.getTime();
        return Number.isSafeInteger(ms) ? BigInt(ms) * 1000n : undefined;
      }
      if (typeof value === "bigint") return value;
      return typeof value === "string" ? parseTimestampMicros(value) : undefined;
    }
    case "list": {
      if (!Array.isArray(value)) return undefined;
      const out: unknown[] = [];
      for (const item of value) {
        if (item === null || item === undefined) {
          out.push(null);
          continue;
        }
        const v = toStorageValue(type.element, item);
        if (v === undefined) return undefined;
        out.push(v);
      }
      return out;
    }
  }
}
