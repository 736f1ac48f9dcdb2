import type { Column, LogicalType } from "@sqlload/core";

/** A parsed ClickHouse type: `Nullable(Decimal(18, 2))` → `{ name: "Nullable", args: [{ name: "Decimal", args: ["18", "2"] }] }`. */
export interface ClickHouseType {
  readonly name: string;
  /** Type arguments: nested types, or literal text (numbers, quoted strings, `a Int32` of a named tuple). */
  readonly args: readonly (ClickHouseType | string)[];
}

/** Decimal256 holds 76 digits; a wider decimal is kept as its exact text. */
export const MAX_DECIMAL_PRECISION = 76;

/** Splits `a, Tuple(b, c), 'x,y'` on its top-level commas. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === "`" || ch === '"') quote = ch;
    else if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (ch === "," && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== "");
}

/** Parses a type as `system.columns.type` prints it. */
export function parseClickHouseType(text: string): ClickHouseType {
  const t = text.trim();
  const open = t.indexOf("(");
  if (open < 0 || !t.endsWith(")")) return { name: t, args: [] };
  const name = t.slice(0, open).trim();
  const inner = t.slice(open + 1, -1);
  const args = splitTopLevel(inner).map((part) =>
    /^[A-Za-z_][A-Za-z0-9_]*(\(.*\))?$/s.test(part) && !/^\d/.test(part) ? parseClickHouseType(part) : part,
  );
  return { name, args };
}

function typeArg(type: ClickHouseType, i: number): ClickHouseType {
  const arg = type.args[i];
  return typeof arg === "object" ? arg : parseClickHouseType(String(arg ?? "String"));
}

function numberArg(type: ClickHouseType, i: number, fallback: number): number {
  const arg = type.args[i];
  const n = typeof arg === "string" ? Number(arg) : Number.NaN;
  return Number.isFinite(n) ? n : fallback;
}

/** Strips `Nullable(…)` and `LowCardinality(…)`, which change storage, not values. */
export function unwrapType(type: ClickHouseType): { type: ClickHouseType; nullable: boolean } {
  let nullable = false;
  let t = type;
  for (;;) {
    if (t.name === "Nullable") nullable = true;
    else if (t.name !== "LowCardinality") return { type: t, nullable };
    t = typeArg(t, 0);
  }
}

/**
 * The ClickHouse type a logical type is stored as (without Nullable). 64-bit integers keep their
 * width, decimals their precision, timestamps microseconds in UTC, dates the wide Date32 range;
 * JSON stays the exact text (ClickHouse's JSON type would reorder keys and renumber values), and
 * bytes go into String, which holds any bytes.
 */
export function clickhouseTypeSql(type: LogicalType, uuid: "UUID" | "String" = "UUID"): string {
  switch (type.kind) {
    case "boolean":
      return "Bool";
    case "int16":
      return "Int16";
    case "int32":
      return "Int32";
    case "int64":
      return "Int64";
    case "float32":
      return "Float32";
    case "float64":
      return "Float64";
    case "decimal":
      return decimalFits(type) ? `Decimal(${type.precision}, ${type.scale})` : "String";
    case "text":
    case "json":
    case "bytes":
      return "String";
    case "uuid":
      return uuid;
    case "date":
      return "Date32";
    case "time":
      return "Time64(6)";
    case "timestamp":
    case "timestamptz":
      return "DateTime64(6, 'UTC')";
    case "list":
      return `Array(${elementTypeSql(type.element, uuid)})`;
  }
}

export function decimalFits(type: { precision: number; scale: number }): boolean {
  return type.precision >= 1 && type.precision <= MAX_DECIMAL_PRECISION && type.scale >= 0 && type.scale <= type.precision;
}

/** Array elements may be NULL; an array itself cannot be Nullable in ClickHouse. */
function elementTypeSql(type: LogicalType, uuid: "UUID" | "String"): string {
  const inner = clickhouseTypeSql(type, uuid);
  return type.kind === "list" ? inner : `Nullable(${inner})`;
}

/** The column type with its nullability. A nullable list becomes a plain Array: a NULL list reads back empty. */
export function columnTypeSql(column: Column): string {
  const inner = clickhouseTypeSql(column.type);
  return column.nullable && column.type.kind !== "list" ? `Nullable(${inner})` : inner;
}

/**
 * The logical type of a ClickHouse column. Types sqlload has no exact twin for map to the nearest
 * one that keeps every value: unsigned integers to the next wider signed one (UInt64 and the
 * 128/256-bit integers to exact decimals), DateTime and DateTime64 of any zone or precision to
 * timestamptz, enums, fixed strings and addresses to text, maps, tuples and JSON to json.
 */
export function logicalTypeOf(text: string | ClickHouseType): LogicalType {
  const { type } = unwrapType(typeof text === "string" ? parseClickHouseType(text) : text);
  switch (type.name) {
    case "Bool":
      return { kind: "boolean" };
    case "Int8":
    case "UInt8":
    case "Int16":
      return { kind: "int16" };
    case "UInt16":
    case "Int32":
      return { kind: "int32" };
    case "UInt32":
    case "Int64":
      return { kind: "int64" };
    case "UInt64":
      return { kind: "decimal", precision: 20, scale: 0 };
    case "Int128":
    case "UInt128":
      return { kind: "decimal", precision: 39, scale: 0 };
    case "Int256":
    case "UInt256":
      return { kind: "decimal", precision: 76, scale: 0 };
    case "Float32":
    case "BFloat16":
      return { kind: "float32" };
    case "Float64":
      return { kind: "float64" };
    case "Decimal":
      return { kind: "decimal", precision: numberArg(type, 0, 10), scale: numberArg(type, 1, 0) };
    case "Decimal32":
      return { kind: "decimal", precision: 9, scale: numberArg(type, 0, 0) };
    case "Decimal64":
      return { kind: "decimal", precision: 18, scale: numberArg(type, 0, 0) };
    case "Decimal128":
      return { kind: "decimal", precision: 38, scale: numberArg(type, 0, 0) };
    case "Decimal256":
      return { kind: "decimal", precision: 76, scale: numberArg(type, 0, 0) };
    case "UUID":
      return { kind: "uuid" };
    case "Date":
    case "Date32":
      return { kind: "date" };
    case "Time":
    case "Time64":
      return { kind: "time" };
    case "DateTime":
    case "DateTime64":
      return { kind: "timestamptz" };
    case "Array":
      return { kind: "list", element: logicalTypeOf(typeArg(type, 0)) };
    case "Map":
    case "Tuple":
    case "JSON":
    case "Object":
    case "Variant":
    case "Dynamic":
    case "Nested":
      return { kind: "json" };
    default:
      return { kind: "text" };
  }
}

const SIGNED_WIDTH: Readonly<Record<string, number>> = { Int16: 16, Int32: 32, Int64: 64, Int128: 128, Int256: 256 };
const LOGICAL_WIDTH: Partial<Record<LogicalType["kind"], number>> = { int16: 16, int32: 32, int64: 64 };

/**
 * Whether values of `incoming` can be written into an existing column of `existing` type with
 * nothing lost: the same type, a wider signed integer or float, a decimal with at least as many
 * digits on each side of the point, String holding any string-valued type, DateTime64 or Time64
 * of microsecond precision or finer. Narrower ClickHouse types that would clamp or round on
 * insert (Date, DateTime, unsigned integers) are refused.
 */
export function fitsColumn(existing: string | ClickHouseType, incoming: LogicalType): boolean {
  const { type } = unwrapType(typeof existing === "string" ? parseClickHouseType(existing) : existing);
  const width = LOGICAL_WIDTH[incoming.kind];
  if (width !== undefined) {
    const to = SIGNED_WIDTH[type.name];
    if (to !== undefined) return width <= to;
    return type.name === "Decimal" && numberArg(type, 1, 0) === 0 && numberArg(type, 0, 0) >= (width === 64 ? 19 : 10);
  }
  switch (type.name) {
    case "Bool":
      return incoming.kind === "boolean";
    case "Float32":
      return incoming.kind === "float32";
    case "Float64":
      return incoming.kind === "float32" || incoming.kind === "float64";
    case "Decimal": {
      if (incoming.kind !== "decimal") return false;
      const [p, s] = [numberArg(type, 0, 10), numberArg(type, 1, 0)];
      return incoming.scale <= s && incoming.precision - incoming.scale <= p - s;
    }
    case "String":
      return ["text", "json", "bytes", "uuid", "decimal"].includes(incoming.kind);
    case "UUID":
      return incoming.kind === "uuid";
    case "Date32":
      return incoming.kind === "date";
    case "Time64":
      return incoming.kind === "time" && numberArg(type, 0, 3) >= 6;
    case "DateTime64":
      return (incoming.kind === "timestamp" || incoming.kind === "timestamptz") && numberArg(type, 0, 3) >= 6;
    case "Array":
      return incoming.kind === "list" && fitsColumn(typeArg(type, 0), incoming.element);
    default:
      return false;
  }
}
