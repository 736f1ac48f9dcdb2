import {
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBListValue,
  DuckDBStructValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  type DuckDBValue,
} from "@duckdb/node-api";

/**
 * A DuckDB result value in a shape every front end can encode for its wire exactly: integers as
 * bigints, decimals as their exact text, dates as days, timestamps as microseconds.
 */
export type PlainValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | { readonly kind: "date"; readonly days: number }
  | { readonly kind: "timestamp"; readonly micros: bigint; readonly zoned: boolean }
  | { readonly kind: "decimal"; readonly text: string; readonly scale: number }
  | readonly PlainValue[]
  | { readonly kind: "struct"; readonly entries: Readonly<Record<string, PlainValue>> };

export function plainValue(value: DuckDBValue): PlainValue {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" || typeof value === "bigint" || typeof value === "string" || typeof value === "boolean")
      return value;
    if (value === null) return null;
    throw new TypeError(`unsupported DuckDB value ${String(value)}`);
  }
  if (value instanceof DuckDBDateValue) return { kind: "date", days: value.days };
  if (value instanceof DuckDBTimestampTZValue) return { kind: "timestamp", micros: value.micros, zoned: true };
  if (value instanceof DuckDBTimestampValue) return { kind: "timestamp", micros: value.micros, zoned: false };
  if (value instanceof DuckDBDecimalValue) return { kind: "decimal", text: value.toString(), scale: value.scale };
  if (value instanceof DuckDBBlobValue) return value.bytes;
  if (value instanceof DuckDBListValue) return value.items.map(plainValue);
  if (value instanceof DuckDBStructValue) {
    const entries: Record<string, PlainValue> = {};
    for (const [key, item] of Object.entries(value.entries)) entries[key] = plainValue(item);
    return { kind: "struct", entries };
  }
  throw new TypeError(`unsupported DuckDB value of type ${value.constructor.name}: ${String(value)}`);
}

/** `2026-10-12T16:00:00.123456Z`: microseconds exactly, for wires that carry timestamps as text. */
export function microsToIso(micros: bigint): string {
  const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const rest = Number(micros - ms * 1000n);
  const iso = new Date(Number(ms)).toISOString(); // …sss Z
  return `${iso.slice(0, 23)}${String(rest).padStart(3, "0")}Z`;
}

export function daysToIso(days: number): string {
  return new Date(days * 86_400_000).toISOString().slice(0, 10);
}
