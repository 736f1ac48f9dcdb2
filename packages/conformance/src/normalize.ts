import { type LogicalType, parseDateDays, parseTimestampMicros, toStorageValue } from "@sqlload/core";

/**
 * One canonical JS value per logical value, so a value written through a connector and one
 * read back by a harness compare equal exactly when they mean the same thing. It accepts the
 * forms engines' clients return, and never accepts a lossy one silently: a 64-bit integer
 * given as an unsafe JS number throws, so a connector that rounds through `number` fails.
 *
 * | type                          | canonical      | accepted                                             |
 * |-------------------------------|----------------|------------------------------------------------------|
 * | boolean                       | boolean        | boolean, 0/1, 0n/1n, "t"/"f", "true"/"false"         |
 * | int16, int32                  | number         | number, bigint, digit string                         |
 * | int64                         | bigint         | bigint, safe number, digit string                    |
 * | float32                       | number (fround)| number, bigint, numeric string ("NaN", "Infinity")   |
 * | float64                       | number         | number, bigint, numeric string                       |
 * | decimal                       | string         | string, bigint, number; trailing zeros ignored       |
 * | text                          | string         | string, exactly (no Unicode normalization)           |
 * | bytes                         | hex string     | Uint8Array (Buffer), hex string (optionally `\x`)   |
 * | uuid                          | string         | string, case ignored                                 |
 * | json                          | parsed JSON    | JSON text, or a parsed object or array               |
 * | date                          | days (number)  | days as number/bigint/digit string, `YYYY-MM-DD`, Date |
 * | time                          | µs (bigint)    | µs as bigint/number/digit string, `HH:MM:SS[.ffffff]` |
 * | timestamp, timestamptz        | µs UTC (bigint)| µs as bigint/digit string, RFC 3339 text, Date (ms)  |
 * | list                          | array          | array, or JSON text of an array, elements as above   |
 */
export function normalizeValue(type: LogicalType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const fail = (): never => {
    throw new TypeError(`cannot read ${describe(value)} as ${type.kind}`);
  };
  switch (type.kind) {
    case "boolean":
      if (typeof value === "boolean") return value;
      if (value === 1 || value === 1n || value === "t" || value === "true") return true;
      if (value === 0 || value === 0n || value === "f" || value === "false") return false;
      return fail();
    case "int16":
    case "int32": {
      const n =
        typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : typeof value === "bigint" ? Number(value) : value;
      return typeof n === "number" && Number.isInteger(n) ? n : fail();
    }
    case "int64":
      return integer(value) ?? fail();
    case "float32":
    case "float64": {
      const n =
        typeof value === "number"
          ? value
          : typeof value === "bigint"
            ? Number(value)
            : typeof value === "string"
              ? Number(value)
              : Number.NaN;
      if (Number.isNaN(n) && !(typeof value === "number" || value === "NaN" || value === "nan")) return fail();
      return type.kind === "float32" ? Math.fround(n) : n;
    }
    case "decimal":
      return canonicalDecimal(
        typeof value === "string" ? value : typeof value === "bigint" || typeof value === "number" ? String(value) : fail(),
      );
    case "text":
      return typeof value === "string" ? value : fail();
    case "uuid":
      return typeof value === "string" ? value.toLowerCase() : fail();
    case "bytes":
      if (value instanceof Uint8Array) return hex(value);
      if (typeof value === "string" && /^(\\x)?([0-9a-fA-F]{2})*$/.test(value)) return value.replace(/^\\x/, "").toLowerCase();
      return fail();
    case "json":
      if (typeof value !== "string") return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return fail();
      }
    case "date": {
      if (value instanceof Date) return Math.floor(value.getTime() / 86_400_000);
      if (typeof value === "number" && Number.isInteger(value)) return value;
      if (typeof value === "bigint") return Number(value);
      if (typeof value === "string") return /^-?\d+$/.test(value) ? Number(value) : (parseDateDays(value) ?? fail());
      return fail();
    }
    case "time": {
      const micros = integer(value) ?? (typeof value === "string" ? toStorageValue(type, value) : undefined);
      return typeof micros === "bigint" ? micros : fail();
    }
    case "timestamp":
    case "timestamptz": {
      if (value instanceof Date) return BigInt(value.getTime()) * 1000n;
      const micros = integer(value) ?? (typeof value === "string" ? parseTimestampMicros(value) : undefined);
      return micros ?? fail();
    }
    case "list": {
      let items = value;
      if (typeof value === "string") {
        try {
          items = JSON.parse(value);
        } catch {
          return fail();
        }
      }
      if (!Array.isArray(items)) return fail();
      return items.map((item) => normalizeValue(type.element, item));
    }
  }
}

/** A bigint from a bigint, a safe integer or a digit string; undefined otherwise. */
function integer(value: unknown): bigint | undefined {
  if (typeof value === "bigint") return value;
  if (typeof value === "number") {
    if (!Number.isInteger(value)) return undefined;
    if (!Number.isSafeInteger(value)) throw new TypeError(`${value} is a 64-bit integer rounded through a JS number`);
    return BigInt(value);
  }
  if (typeof value === "string" && /^-?\d+$/.test(value)) return BigInt(value);
  return undefined;
}

/** `-001.500` → `-1.5`, `0.000` → `0`: the value, whatever scale an engine prints. */
export function canonicalDecimal(text: string): string {
  const m = /^([+-])?(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m) throw new TypeError(`${JSON.stringify(text)} is not a decimal`);
  const whole = (m[2] ?? "").replace(/^0+/, "") || "0";
  const fraction = (m[3] ?? "").replace(/0+$/, "");
  const body = fraction ? `${whole}.${fraction}` : whole;
  return m[1] === "-" && body !== "0" ? `-${body}` : body;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function describe(value: unknown): string {
  if (typeof value === "bigint") return `${value}n`;
  if (value instanceof Uint8Array) return `bytes(${value.length})`;
  try {
    return `${typeof value} ${JSON.stringify(value)}`;
  } catch {
    return String(value);
  }
}

/**
 * A string that is equal for equal canonical values: sorts rows and multisets so results can be
 * compared whatever order an engine returned them in.
 */
export function canonicalKey(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return `${v}n`;
    if (typeof v === "number" && !Number.isFinite(v)) return String(v);
    if (v && typeof v === "object" && !Array.isArray(v)) {
      // JSON objects compare whatever their key order (jsonb reorders keys).
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}
