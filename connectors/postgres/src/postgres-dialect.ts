import { createHash } from "node:crypto";
import {
  type Column,
  type CursorKind,
  type CursorValue,
  cursorKindOf,
  type LogicalType,
  type RangeDialect,
  SqlloadError,
} from "@sqlload/core";

/** Postgres truncates longer identifiers silently, which would make a table unfindable by its own name. */
const MAX_IDENTIFIER_BYTES = 63;

/** `"name"`, doubling inner quotes; works for any name Postgres can hold (quotes, spaces, unicode). */
export function quoteIdent(name: string): string {
  if (name.includes("\0")) throw new SqlloadError("SL305", `identifier ${JSON.stringify(name)} holds a NUL character`);
  if (Buffer.byteLength(name) > MAX_IDENTIFIER_BYTES) {
    throw new SqlloadError(
      "SL305",
      `identifier ${JSON.stringify(name)} is longer than the ${MAX_IDENTIFIER_BYTES} bytes Postgres keeps`,
      { hint: "Rename the source or table so that `<source>__<table>` fits in 63 bytes." },
    );
  }
  return `"${name.replaceAll('"', '""')}"`;
}

/** `"schema"."name"`, or `"name"` alone (resolved through the search path). */
export function qualifiedName(ref: { readonly schema?: string | undefined; readonly name: string }): string {
  return ref.schema === undefined ? quoteIdent(ref.name) : `${quoteIdent(ref.schema)}.${quoteIdent(ref.name)}`;
}

/**
 * A name derived from another (`orders__sqlload_new`) that still fits in 63 bytes: when it would
 * not, the base is cut on a character boundary and a hash keeps distinct bases distinct.
 */
export function derivedName(base: string, suffix: string): string {
  const full = `${base}${suffix}`;
  if (Buffer.byteLength(full) <= MAX_IDENTIFIER_BYTES) return full;
  const hash = createHash("sha256").update(base).digest("hex").slice(0, 8);
  let cut = base;
  while (Buffer.byteLength(`${cut}_${hash}${suffix}`) > MAX_IDENTIFIER_BYTES) cut = Array.from(cut).slice(0, -1).join("");
  return `${cut}_${hash}${suffix}`;
}

/**
 * A string literal for SQL text that cannot take parameters (COPY). The `E''` form is read the
 * same whatever `standard_conforming_strings` says: backslashes and quotes are both escaped.
 * Everywhere else values are bound as parameters.
 */
export function quoteLiteral(value: string): string {
  if (value.includes("\0")) throw new SqlloadError("SL300", "a text value holds a NUL character, which Postgres cannot store");
  return `E'${value.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

/**
 * `body` as a dollar-quoted string (`$q$…$q$`), whose tag appears nowhere in it: a body holding
 * quoted names needs no escaping, whatever characters they hold.
 */
export function dollarQuote(body: string): string {
  let tag = "$sqlload$";
  for (let n = 1; body.includes(tag); n++) tag = `$sqlload${n}$`;
  return `${tag}${body}${tag}`;
}

// ── Types ────────────────────────────────────────────────────────────────────────────────────

/** How a value travels in COPY's binary format: the send/recv format of one Postgres type. */
export type WireType =
  | {
      readonly kind:
        | "bool"
        | "int2"
        | "int4"
        | "int8"
        | "float4"
        | "float8"
        | "numeric"
        | "text"
        | "json"
        | "jsonb"
        | "bytea"
        | "date"
        | "time"
        | "timestamp"
        | "timestamptz"
        | "uuid";
    }
  | { readonly kind: "array"; readonly element: WireType; readonly elementOid: number }
  /** A type sqlload cannot encode: readable only through a cast to text, not writable. */
  | { readonly kind: "unsupported"; readonly name: string };

/** A column as the catalog describes it (see postgres-catalog.ts). */
export interface CatalogColumn {
  readonly name: string;
  readonly notNull: boolean;
  /** `format_type()`: `numeric(12,2)`, `character varying(20)`, `"Mood"`. */
  readonly declared: string;
  /** The type's name after resolving a domain to its base type. */
  readonly typeName: string;
  /** `pg_type.typtype`: b base, e enum, d domain, c composite, r range. */
  readonly typeType: string;
  readonly typmod: number;
  readonly elementName: string | null;
  readonly elementType: string | null;
  readonly elementOid: number | null;
  readonly collation: string | null;
}

/** A column with everything needed to read it, write it and compare it. */
export interface PgColumn extends Column {
  readonly declared: string;
  readonly wire: WireType;
  /** Read as `"col"::text` (enums read natively; other types sqlload does not know are cast). */
  readonly castToText: boolean;
  /** Unconstrained `numeric`: holds any decimal exactly, whatever `type` says. */
  readonly unconstrainedNumeric: boolean;
  readonly collation: string | null;
  /** The type's name (after resolving a domain): `int8`, `varchar`, `_int4`. */
  readonly pgType: string;
  /** text, varchar, char, name: types whose own comparison `COLLATE "C"` changes directly. */
  readonly textLike: boolean;
}

const TEXT_LIKE = new Set(["text", "varchar", "bpchar", "name"]);

/**
 * The logical type of an unconstrained `numeric`: values still travel as exact strings, so this
 * only matters where a target must declare a precision (DuckDB's widest decimal is 38 digits).
 * The Postgres target writes `decimal(38,9)` back as unconstrained `numeric`, so Postgres to
 * Postgres keeps every digit.
 */
export const UNCONSTRAINED_NUMERIC: LogicalType = { kind: "decimal", precision: 38, scale: 9 };

const SCALARS: Record<string, { logical: LogicalType; wire: WireType }> = {
  bool: { logical: { kind: "boolean" }, wire: { kind: "bool" } },
  int2: { logical: { kind: "int16" }, wire: { kind: "int2" } },
  int4: { logical: { kind: "int32" }, wire: { kind: "int4" } },
  int8: { logical: { kind: "int64" }, wire: { kind: "int8" } },
  float4: { logical: { kind: "float32" }, wire: { kind: "float4" } },
  float8: { logical: { kind: "float64" }, wire: { kind: "float8" } },
  text: { logical: { kind: "text" }, wire: { kind: "text" } },
  varchar: { logical: { kind: "text" }, wire: { kind: "text" } },
  bpchar: { logical: { kind: "text" }, wire: { kind: "text" } },
  name: { logical: { kind: "text" }, wire: { kind: "text" } },
  citext: { logical: { kind: "text" }, wire: { kind: "text" } },
  bytea: { logical: { kind: "bytes" }, wire: { kind: "bytea" } },
  uuid: { logical: { kind: "uuid" }, wire: { kind: "uuid" } },
  json: { logical: { kind: "json" }, wire: { kind: "json" } },
  jsonb: { logical: { kind: "json" }, wire: { kind: "jsonb" } },
  date: { logical: { kind: "date" }, wire: { kind: "date" } },
  time: { logical: { kind: "time" }, wire: { kind: "time" } },
  timestamp: { logical: { kind: "timestamp" }, wire: { kind: "timestamp" } },
  timestamptz: { logical: { kind: "timestamptz" }, wire: { kind: "timestamptz" } },
};

/** precision and scale of a `numeric(p,s)` typmod; Postgres 15 allows a negative scale or one above the precision. */
function numericType(typmod: number): { type: LogicalType; unconstrained: boolean } {
  if (typmod < 4) return { type: UNCONSTRAINED_NUMERIC, unconstrained: true };
  const precision = ((typmod - 4) >> 16) & 0xffff;
  // The scale is an 11-bit signed number in Postgres 15+.
  const rawScale = (typmod - 4) & 0x7ff;
  const scale = rawScale & 0x400 ? rawScale - 0x800 : rawScale;
  const integerDigits = Math.max(precision - scale, 0);
  const fractionDigits = Math.max(scale, 0);
  return { type: { kind: "decimal", precision: integerDigits + fractionDigits, scale: fractionDigits }, unconstrained: false };
}

function scalarOf(
  typeName: string,
  typeType: string,
  typmod: number,
): { logical: LogicalType; wire: WireType; unconstrained: boolean } | undefined {
  if (typeName === "numeric") {
    const { type, unconstrained } = numericType(typmod);
    return { logical: type, wire: { kind: "numeric" }, unconstrained };
  }
  const simple = SCALARS[typeName];
  if (simple) return { ...simple, unconstrained: false };
  // An enum's binary form is its label, so it reads and writes as text with no cast.
  if (typeType === "e") return { logical: { kind: "text" }, wire: { kind: "text" }, unconstrained: false };
  return undefined;
}

/**
 * Maps a catalog column to its logical type and wire format. Types sqlload does not know
 * (interval, inet, money, ranges, composites…) are read as their text form.
 */
export function mapColumn(c: CatalogColumn): PgColumn {
  const base = {
    name: c.name,
    nullable: !c.notNull,
    declared: c.declared,
    collation: c.collation,
    pgType: c.typeName,
    textLike: TEXT_LIKE.has(c.typeName),
  };
  if (c.elementName !== null && c.elementOid !== null) {
    const element = scalarOf(c.elementName, c.elementType ?? "b", c.typmod);
    if (element) {
      return {
        ...base,
        type: { kind: "list", element: element.logical },
        wire: { kind: "array", element: element.wire, elementOid: c.elementOid },
        castToText: false,
        unconstrainedNumeric: false,
      };
    }
    return {
      ...base,
      type: { kind: "list", element: { kind: "text" } },
      wire: { kind: "array", element: { kind: "text" }, elementOid: TEXT_OID },
      castToText: true,
      unconstrainedNumeric: false,
    };
  }
  const scalar = scalarOf(c.typeName, c.typeType, c.typmod);
  if (scalar) {
    return { ...base, type: scalar.logical, wire: scalar.wire, castToText: false, unconstrainedNumeric: scalar.unconstrained };
  }
  return {
    ...base,
    type: { kind: "text" },
    wire: { kind: "unsupported", name: c.declared },
    castToText: true,
    unconstrainedNumeric: false,
  };
}

export const TEXT_OID = 25;

/** The wire format a read of the column sends: its own, or text when it is read through a cast. */
export function readWire(column: PgColumn): WireType {
  return column.wire.kind === "unsupported" ? { kind: "text" } : column.wire;
}

/** The expression a read selects for a column: itself, or its text form. */
export function selectExpression(column: PgColumn): string {
  if (!column.castToText) return quoteIdent(column.name);
  return column.type.kind === "list" ? `${quoteIdent(column.name)}::text[]` : `${quoteIdent(column.name)}::text`;
}

/**
 * The Postgres type the target declares for a logical type. `decimal(38,9)`, the stand-in for
 * an unconstrained numeric, becomes unconstrained `numeric` again; JSON becomes `jsonb`.
 */
export function pgTypeFor(type: LogicalType): string {
  switch (type.kind) {
    case "boolean":
      return "boolean";
    case "int16":
      return "smallint";
    case "int32":
      return "integer";
    case "int64":
      return "bigint";
    case "float32":
      return "real";
    case "float64":
      return "double precision";
    case "decimal":
      if (sameDecimal(type, UNCONSTRAINED_NUMERIC) || type.precision > 1000 || type.precision < 1) return "numeric";
      return `numeric(${type.precision},${type.scale})`;
    case "text":
      return "text";
    case "bytes":
      return "bytea";
    case "uuid":
      return "uuid";
    case "json":
      return "jsonb";
    case "date":
      return "date";
    case "time":
      return "time";
    case "timestamp":
      return "timestamp";
    case "timestamptz":
      return "timestamptz";
    case "list":
      // Postgres arrays carry their dimensions in the value, so list<list<x>> is also x[].
      return `${pgTypeFor(type.element.kind === "list" ? innermost(type.element) : type.element)}[]`;
  }
}

function innermost(type: LogicalType): LogicalType {
  return type.kind === "list" ? innermost(type.element) : type;
}

function sameDecimal(a: LogicalType, b: LogicalType): boolean {
  return a.kind === "decimal" && b.kind === "decimal" && a.precision === b.precision && a.scale === b.scale;
}

/**
 * Whether values of `incoming` can be stored in an existing column without loss: the same type,
 * or a wider one (int16 → int32 → int64, float32 → float64, a decimal with room for the digits).
 */
export function fitsInto(incoming: LogicalType, existing: PgColumn | LogicalType): boolean {
  const target = "wire" in existing ? existing.type : existing;
  const unconstrained = "wire" in existing && existing.unconstrainedNumeric;
  if (unconstrained && (incoming.kind === "decimal" || isInteger(incoming))) return true;
  if (incoming.kind === "list") return target.kind === "list" && fitsInto(incoming.element, target.element);
  if (incoming.kind === target.kind) {
    if (incoming.kind !== "decimal" || target.kind !== "decimal") return true;
    return target.scale >= incoming.scale && target.precision - target.scale >= incoming.precision - incoming.scale;
  }
  const rank = { int16: 1, int32: 2, int64: 3 } as Record<string, number>;
  if (isInteger(incoming) && isInteger(target)) return (rank[incoming.kind] ?? 0) <= (rank[target.kind] ?? 0);
  if (incoming.kind === "float32" && target.kind === "float64") return true;
  if (isInteger(incoming) && target.kind === "decimal") {
    const digits = { int16: 5, int32: 10, int64: 19 }[incoming.kind as "int16"];
    return target.precision - target.scale >= digits;
  }
  return false;
}

function isInteger(type: LogicalType): boolean {
  return type.kind === "int16" || type.kind === "int32" || type.kind === "int64";
}

// ── Cursors ──────────────────────────────────────────────────────────────────────────────────

/** Collations whose order is Unicode code point order (byte order of UTF-8). */
const CODE_POINT_COLLATIONS = new Set(["C", "POSIX", "ucs_basic"]);

/**
 * Whether a text column already sorts by code point: collated "C"/"POSIX", or the database
 * default when the database itself is "C". Then the column needs no `COLLATE "C"`, and its
 * ordinary index serves cursor reads.
 */
export function sortsByCodePoint(column: PgColumn, defaultIsCodePoint: boolean): boolean {
  if (column.collation === null) return false;
  if (column.collation === "default") return defaultIsCodePoint;
  return CODE_POINT_COLLATIONS.has(column.collation);
}

/**
 * The expression cursor predicates, `ORDER BY` and `max` use: text compares with `COLLATE "C"`
 * (code point order) unless the column already does.
 */
export function cursorExpression(column: PgColumn, kind: CursorKind, codePointNative: boolean): string {
  return orderExpression(quoteIdent(column.name), column, kind, codePointNative);
}

function orderExpression(quoted: string, column: PgColumn, kind: CursorKind, codePointNative: boolean): string {
  if (kind !== "text" || codePointNative) return quoted;
  return column.textLike ? `(${quoted} COLLATE "C")` : `(${quoted}::text COLLATE "C")`;
}

/**
 * Postgres' hooks for core's range predicate on a cursor column: the comparison of
 * `cursorExpression`, and bounds rendered by `value` (a literal for COPY, which takes no
 * parameters; a parameter elsewhere).
 */
export function rangeDialect(column: PgColumn, codePointNative: boolean, value: (bound: CursorValue) => string): RangeDialect {
  return {
    quoteIdentifier: quoteIdent,
    orderExpression: (quoted, kind) => orderExpression(quoted, column, kind, codePointNative),
    value,
  };
}

/** The cursor kind of a column, or undefined when it cannot be one. */
export function cursorKindOfColumn(column: PgColumn): CursorKind | undefined {
  return column.castToText ? undefined : cursorKindOf(column.type);
}

/** Postgres' `date` and `timestamp` infinities, as sqlload holds them (saturated). */
export const DATE_INFINITY = 0x7fffffff;
export const DATE_MINUS_INFINITY = -0x80000000;
export const TIMESTAMP_INFINITY = 0x7fffffffffffffffn;
export const TIMESTAMP_MINUS_INFINITY = -0x8000000000000000n;

const pad = (n: number | bigint, width: number) => String(n).padStart(width, "0");

/**
 * `2026-10-12`, or `0044-03-15 BC`, for any day Postgres can hold (JavaScript's Date stops at
 * year 275760; Postgres dates go to 5874897). Howard Hinnant's days-to-civil, in integers; its
 * years are astronomical (year 0 is 1 BC).
 */
function civilDate(days: number): { text: string; bc: boolean } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const bc = year <= 0;
  return { text: `${pad(bc ? 1 - year : year, 4)}-${pad(month, 2)}-${pad(day, 2)}`, bc };
}

/** A date as Postgres reads it: `2026-10-12`, `0044-03-15 BC`, `infinity`. */
export function pgDateText(days: number): string {
  if (days >= DATE_INFINITY) return "infinity";
  if (days <= DATE_MINUS_INFINITY) return "-infinity";
  const { text, bc } = civilDate(days);
  return bc ? `${text} BC` : text;
}

/** A timestamp as Postgres reads it, unambiguous whatever the session's time zone: `… .000001+00`. */
export function pgTimestampText(micros: bigint): string {
  if (micros >= TIMESTAMP_INFINITY) return "infinity";
  if (micros <= TIMESTAMP_MINUS_INFINITY) return "-infinity";
  const perDay = 86_400_000_000n;
  const days = micros >= 0n ? micros / perDay : -((-micros + perDay - 1n) / perDay);
  const inDay = micros - days * perDay;
  const seconds = inDay / 1_000_000n;
  const time = `${pad(seconds / 3600n, 2)}:${pad((seconds % 3600n) / 60n, 2)}:${pad(seconds % 60n, 2)}.${pad(inDay % 1_000_000n, 6)}`;
  const { text, bc } = civilDate(Number(days));
  return `${text} ${time}+00${bc ? " BC" : ""}`;
}

/** A cursor value as a bind parameter (text the server casts to the column's type). */
export function cursorParameter(value: CursorValue): string {
  switch (value.kind) {
    case "integer":
      return value.value.toString();
    case "date":
      return pgDateText(value.value);
    case "timestamp":
      return pgTimestampText(value.value);
    case "text":
      return value.value;
  }
}

/** The cast a cursor parameter or literal takes for a column. */
export function cursorCast(column: PgColumn, kind: CursorKind): string {
  switch (kind) {
    case "integer":
      return "int8";
    case "date":
      return "date";
    case "timestamp":
      return column.type.kind === "timestamptz" ? "timestamptz" : "timestamp";
    case "text":
      return "text";
  }
}

/** A cursor value as a literal, for COPY (which takes no parameters). */
export function cursorLiteral(value: CursorValue, column: PgColumn, kind: CursorKind): string {
  if (value.kind !== kind) {
    throw new SqlloadError("SL900", `a ${value.kind} cursor value was given for the ${kind} cursor "${column.name}"`);
  }
  return `${quoteLiteral(cursorParameter(value))}::${cursorCast(column, kind)}`;
}

/**
 * SQL giving a cursor aggregate as exact text: integers as digits, dates as days since 1970,
 * timestamps as microseconds since 1970 UTC (computed in integers, so exact on every version).
 */
export function cursorValueSql(m: string, column: PgColumn, kind: CursorKind): string {
  switch (kind) {
    case "integer":
      return `(${m})::text`;
    case "date":
      return `((${m}) - DATE '1970-01-01')::text`;
    case "timestamp": {
      const ts = column.type.kind === "timestamptz" ? `((${m}) AT TIME ZONE 'UTC')` : `(${m})`;
      return `(extract(epoch from date_trunc('second', ${ts}))::int8 * 1000000 + extract(microseconds from ${ts})::int8 % 1000000)::text`;
    }
    case "text":
      return `(${m})::text`;
  }
}

/** Parses what `cursorValueSql` gave back. */
export function parseCursorText(text: string | null, kind: CursorKind): CursorValue | null {
  if (text === null) return null;
  switch (kind) {
    case "integer":
      return { kind, value: BigInt(text) };
    case "date":
      return { kind, value: Number(text) };
    case "timestamp":
      return { kind, value: BigInt(text) };
    case "text":
      return { kind, value: text };
  }
}
