import {
  type Column,
  type ColumnVector,
  type CursorKind,
  type CursorValue,
  formatLogicalType,
  type LogicalType,
  parseLogicalType,
  type RangeDialect,
  type RangePredicateOptions,
  type RecordBatch,
  rangePredicate,
} from "@sqlload/core";

/** Quotes an identifier, always: names from sources may hold quotes, dots, spaces or reserved words. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Logical types whose values are strings a NUMERIC column would turn into numbers (`"1.50"` → 1.5). */
const TEXT_AFFINITY = new Set<LogicalType["kind"]>(["decimal", "uuid", "json"]);

/**
 * The declared SQLite type of a column: sqlload's own name for the logical type, so
 * `describeTable` reads it back exactly. SQLite derives a column's affinity from that text;
 * decimals, UUIDs and JSON get a ` text` suffix so their strings are never converted to numbers.
 * Integers, dates (days since 1970-01-01) and times and timestamps (microseconds) are stored as
 * 64-bit integers, lists as JSON text.
 */
export function declaredType(type: LogicalType): string {
  return TEXT_AFFINITY.has(type.kind) ? `${formatLogicalType(type)} text` : formatLogicalType(type);
}

/** The logical type of a declared type; a column made by hand falls back to its affinity. */
export function logicalTypeOf(declared: string): LogicalType {
  const parsed = parseLogicalType(declared.replace(/ text$/i, ""));
  if (parsed) return parsed;
  const upper = declared.toUpperCase();
  if (upper.includes("INT")) return { kind: "int64" };
  if (/REAL|FLOA|DOUB/.test(upper)) return { kind: "float64" };
  if (upper.includes("BLOB")) return { kind: "bytes" };
  return { kind: "text" };
}

const INTEGER_RANK: Partial<Record<LogicalType["kind"], number>> = { int16: 1, int32: 2, int64: 3 };

/** Whether values of `incoming` fit a column declared for `existing` with nothing lost. */
export function fits(existing: LogicalType, incoming: LogicalType): boolean {
  if (formatLogicalType(existing) === formatLogicalType(incoming)) return true;
  const from = INTEGER_RANK[incoming.kind];
  const to = INTEGER_RANK[existing.kind];
  if (from !== undefined && to !== undefined) return from <= to;
  if (existing.kind === "float64") return incoming.kind === "float32";
  // Both are microseconds since the epoch, UTC.
  const micros = ["timestamp", "timestamptz"];
  return micros.includes(existing.kind) && micros.includes(incoming.kind);
}

export type SqliteValue = number | bigint | string | Uint8Array | null;

/** A converter from a batch column's storage (see `RecordBatch`) to what the driver binds. */
export function toSqlite(type: LogicalType): (vector: ColumnVector, row: number) => SqliteValue {
  const encode = encoder(type);
  return (vector, row) => (vector.nulls?.[row] === 1 ? null : encode(vector.values[row]));
}

function encoder(type: LogicalType): (value: unknown) => SqliteValue {
  switch (type.kind) {
    case "list":
      return (v) => JSON.stringify(jsonList(v as unknown[]));
    default:
      // bytes, booleans (0/1), numbers, bigints and strings bind as they are stored.
      return (v) => v as SqliteValue;
  }
}

/** List elements as JSON: 64-bit integers as digit strings (exact), bytes as hex. */
function jsonList(values: readonly unknown[]): unknown[] {
  return values.map((v) => {
    if (typeof v === "bigint") return v.toString();
    if (v instanceof Uint8Array) return Buffer.from(v).toString("hex");
    if (Array.isArray(v)) return jsonList(v);
    return v;
  });
}

/**
 * A cursor value from what `max()` returned; undefined when the value is not of that kind. The
 * driver gives integers as numbers while they are safe, as bigints beyond.
 */
export function cursorFromSqlite(kind: CursorKind, value: unknown): CursorValue | undefined {
  const integer = typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value));
  switch (kind) {
    case "integer":
      return integer ? { kind, value: BigInt(value as number | bigint) } : undefined;
    case "date":
      return integer ? { kind, value: Number(value) } : undefined;
    case "timestamp":
      return integer ? { kind, value: BigInt(value as number | bigint) } : undefined;
    case "text":
      return typeof value === "string" ? { kind, value } : undefined;
  }
}

/**
 * Core's cursor range with `?` parameters, in the order they appear. The column's default
 * collation, BINARY, compares UTF-8 bytes, which is Unicode code point order: text needs no
 * COLLATE, and every kind is stored as what it compares as (integers, days, microseconds, text).
 */
export function sqliteRange(options: RangePredicateOptions): { sql: string; params: (number | bigint | string)[] } {
  const params: (number | bigint | string)[] = [];
  const dialect: RangeDialect = {
    quoteIdentifier: quoteIdent,
    orderExpression: (column) => column,
    value(value) {
      params.push(value.value);
      return "?";
    },
  };
  return { sql: rangePredicate(dialect, options), params };
}

/** `CREATE TABLE` for columns; every column nullable, whatever the source says (rows decide). */
export function createTableSql(table: string, columns: readonly Column[]): string {
  return `CREATE TABLE ${table} (${columns.map((c) => `${quoteIdent(c.name)} ${quoteIdent(declaredType(c.type))}`).join(", ")})`;
}

/** The batch's rows as parameter lists for `INSERT INTO t (columns…) VALUES (?…)`. */
export function* rowsOf(batch: RecordBatch): Generator<SqliteValue[]> {
  const converters = batch.schema.map((c) => toSqlite(c.type));
  for (let row = 0; row < batch.length; row++) {
    yield converters.map((convert, c) => convert(batch.columns[c] as ColumnVector, row));
  }
}
