import { SqlloadError } from "../errors/sqlload-error.js";
import { compareCodePoints } from "./compare.js";
import type { CursorKind } from "./cursor-kind.js";

/**
 * A cursor position. Integers are bigints (exact beyond 2^53), dates are days since 1970-01-01,
 * timestamps are microseconds since 1970-01-01 UTC, text is the string itself.
 */
export type CursorValue =
  | { readonly kind: "integer"; readonly value: bigint }
  | { readonly kind: "date"; readonly value: number }
  | { readonly kind: "timestamp"; readonly value: bigint }
  | { readonly kind: "text"; readonly value: string };

export const MICROS_PER_DAY = 86_400_000_000n;
const MS_PER_DAY = 86_400_000;

export function integerCursor(value: bigint | number): CursorValue {
  return { kind: "integer", value: BigInt(value) };
}
export function dateCursor(days: number): CursorValue {
  return { kind: "date", value: days };
}
export function timestampCursor(micros: bigint): CursorValue {
  return { kind: "timestamp", value: micros };
}
export function textCursor(value: string): CursorValue {
  return { kind: "text", value };
}

/** Orders two cursor values of one kind; text by code point. */
export function compareCursor(a: CursorValue, b: CursorValue): number {
  if (a.kind !== b.kind) throw new TypeError(`cannot compare a ${a.kind} cursor with a ${b.kind} cursor`);
  if (a.kind === "text") return compareCodePoints(a.value, b.value as string);
  const x = a.value as bigint | number;
  const y = b.value as bigint | number;
  return x < y ? -1 : x > y ? 1 : 0;
}

export function cursorEquals(a: CursorValue | null | undefined, b: CursorValue | null | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.kind === b.kind && compareCursor(a, b) === 0;
}

export function maxCursor(a: CursorValue | null, b: CursorValue | null): CursorValue | null {
  if (!a) return b;
  if (!b) return a;
  return compareCursor(a, b) >= 0 ? a : b;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
// RFC 3339 (with `T` or a space), fractional seconds up to microseconds, `Z` or an offset;
// without a zone the value is taken as UTC, as for a timestamp column without a time zone.
const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Days since the epoch of a `YYYY-MM-DD` date, or undefined when it is not a real date. */
export function parseDateDays(text: string): number | undefined {
  const m = DATE_RE.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Date.UTC maps years 0–99 to 1900–1999; setting the year separately keeps them.
  const back = new Date(Date.UTC(2000, mo - 1, d));
  back.setUTCFullYear(y);
  const ms = back.getTime();
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return Math.round(ms / MS_PER_DAY);
}

/** Microseconds since the epoch of an RFC 3339 timestamp, or of a date's midnight UTC. */
export function parseTimestampMicros(text: string): bigint | undefined {
  const days = parseDateDays(text);
  if (days !== undefined) return BigInt(days) * MICROS_PER_DAY;
  const m = TIMESTAMP_RE.exec(text.trim());
  if (!m) return undefined;
  const dayCount = parseDateDays(`${m[1]}-${m[2]}-${m[3]}`);
  const [h, mi, s] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  if (dayCount === undefined || h > 23 || mi > 59 || s > 60) return undefined;
  const fraction = (m[7] ?? "").padEnd(6, "0").slice(0, 6);
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone && zone.toUpperCase() !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0));
  }
  const seconds = BigInt(dayCount) * 86_400n + BigInt(h * 3600 + mi * 60 + s) - BigInt(offsetMinutes * 60);
  return seconds * 1_000_000n + BigInt(fraction);
}

/**
 * Parses user input (a config value or a flag) as a cursor of the given kind. Dates given for a
 * timestamp cursor mean their midnight UTC. Throws SL113 naming `what` when it does not parse.
 */
export function parseCursor(kind: CursorKind, input: string | number | bigint | Date, what = "cursor value"): CursorValue {
  const fail = (): never => {
    throw new SqlloadError("SL113", `${what} ${JSON.stringify(String(input))} is not a valid ${kind} cursor value`);
  };
  switch (kind) {
    case "integer": {
      if (typeof input === "bigint") return integerCursor(input);
      if (typeof input === "number") return Number.isSafeInteger(input) ? integerCursor(input) : fail();
      if (typeof input === "string" && /^-?\d+$/.test(input.trim())) return integerCursor(BigInt(input.trim()));
      return fail();
    }
    case "date": {
      if (input instanceof Date) return dateCursor(Math.floor(input.getTime() / MS_PER_DAY));
      const days = typeof input === "string" ? parseDateDays(input.trim()) : undefined;
      return days === undefined ? fail() : dateCursor(days);
    }
    case "timestamp": {
      if (input instanceof Date) return timestampCursor(BigInt(input.getTime()) * 1000n);
      const micros = typeof input === "string" ? parseTimestampMicros(input) : undefined;
      return micros === undefined ? fail() : timestampCursor(micros);
    }
    case "text":
      return typeof input === "string" ? textCursor(input) : fail();
  }
}

function pad(n: number | bigint, width: number): string {
  return String(n).padStart(width, "0");
}

/** `YYYY-MM-DD` of a day count. */
export function formatDays(days: number): string {
  const d = new Date(days * MS_PER_DAY);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}

/** `2026-10-12 16:00:00.000000+00` of microseconds since the epoch. */
export function formatMicros(micros: bigint): string {
  const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));
  const days = floorDiv(micros, MICROS_PER_DAY);
  const inDay = micros - days * MICROS_PER_DAY;
  const seconds = inDay / 1_000_000n;
  const fraction = inDay % 1_000_000n;
  const h = seconds / 3600n;
  const m = (seconds % 3600n) / 60n;
  const s = seconds % 60n;
  return `${formatDays(Number(days))} ${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${pad(fraction, 6)}+00`;
}

/** The printed form of SPEC §4: `2026-10-12 16:00:00.000000+00`, `2026-10-12`, `42`, `'B1'`. */
export function formatCursor(value: CursorValue): string {
  switch (value.kind) {
    case "integer":
      return value.value.toString();
    case "date":
      return formatDays(value.value);
    case "timestamp":
      return formatMicros(value.value);
    case "text":
      return `'${value.value.replaceAll("'", "''")}'`;
  }
}

/** A lossless, unquoted string form, for JSON output and the run log: parse it back with `parseCursor`. */
export function cursorToString(value: CursorValue): string {
  switch (value.kind) {
    case "integer":
      return value.value.toString();
    case "date":
      return formatDays(value.value);
    case "timestamp": {
      const text = formatMicros(value.value);
      return `${text.slice(0, 10)}T${text.slice(11, 26)}Z`;
    }
    case "text":
      return value.value;
  }
}

export function cursorToJSON(value: CursorValue | null | undefined): { kind: CursorKind; value: string } | null {
  return value ? { kind: value.kind, value: cursorToString(value) } : null;
}

export function cursorFromJSON(json: unknown): CursorValue | null {
  if (!json || typeof json !== "object") return null;
  const { kind, value } = json as { kind?: unknown; value?: unknown };
  if (typeof value !== "string" || !["integer", "date", "timestamp", "text"].includes(kind as string)) return null;
  return parseCursor(kind as CursorKind, value);
}
