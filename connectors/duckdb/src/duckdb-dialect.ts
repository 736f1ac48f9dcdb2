import type { DuckDBType } from "@duckdb/node-api";
import type { LogicalType, TargetTableRef } from "@sqlload/core";
import { DuckDBTypeId } from "./duckdb-client.js";

/**
 * Quotes an identifier, always: names from sources may hold quotes, dots, spaces, upper case or
 * reserved words. Note that DuckDB matches even quoted identifiers case-insensitively (it keeps
 * the case as written), so `"Orders"` and `"orders"` are one table there.
 */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A SQL string literal, for the few places DuckDB takes no parameter (a `COPY … TO` path, reader options). */
export function quoteString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

export function qualifiedName(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

export function qualifiedTable(ref: TargetTableRef): string {
  return qualifiedName(ref.schema, ref.name);
}

/** DuckDB's widest exact decimal. */
const MAX_DECIMAL_PRECISION = 38;

/**
 * The DuckDB type a logical type is stored as. A decimal wider than DuckDB's 38 digits becomes
 * VARCHAR holding the exact digits (DOUBLE would lose them), so it reads back as `text`.
 */
export function duckdbTypeSql(type: LogicalType): string {
  switch (type.kind) {
    case "boolean":
      return "BOOLEAN";
    case "int16":
      return "SMALLINT";
    case "int32":
      return "INTEGER";
    case "int64":
      return "BIGINT";
    case "float32":
      return "REAL";
    case "float64":
      return "DOUBLE";
    case "decimal":
      return type.precision >= 1 && type.precision <= MAX_DECIMAL_PRECISION && type.scale >= 0 && type.scale <= type.precision
        ? `DECIMAL(${type.precision},${type.scale})`
        : "VARCHAR";
    case "text":
      return "VARCHAR";
    case "bytes":
      return "BLOB";
    case "uuid":
      return "UUID";
    case "json":
      return "JSON";
    case "date":
      return "DATE";
    case "time":
      return "TIME";
    case "timestamp":
      return "TIMESTAMP";
    case "timestamptz":
      return "TIMESTAMPTZ";
    case "list":
      return `${duckdbTypeSql(type.element)}[]`;
  }
}

/**
 * The logical type of a DuckDB column. Types sqlload has no exact twin for map to the nearest
 * one that keeps every value: unsigned and huge integers to a wider integer or an exact decimal,
 * other timestamp units to microseconds, enums, intervals and bit strings to text, structs, maps
 * and unions to JSON. Such columns are read through `readExpression`'s cast.
 */
export function logicalTypeOf(type: DuckDBType): LogicalType {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return { kind: "boolean" };
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.SMALLINT:
      return { kind: "int16" };
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.INTEGER:
      return { kind: "int32" };
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.BIGINT:
      return { kind: "int64" };
    case DuckDBTypeId.UBIGINT:
      return { kind: "decimal", precision: 20, scale: 0 };
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
      return { kind: "decimal", precision: 39, scale: 0 };
    case DuckDBTypeId.FLOAT:
      return { kind: "float32" };
    case DuckDBTypeId.DOUBLE:
      return { kind: "float64" };
    case DuckDBTypeId.DECIMAL:
      return { kind: "decimal", precision: type.width, scale: type.scale };
    case DuckDBTypeId.VARCHAR:
      return type.alias?.toUpperCase() === "JSON" ? { kind: "json" } : { kind: "text" };
    case DuckDBTypeId.BLOB:
      return { kind: "bytes" };
    case DuckDBTypeId.UUID:
      return { kind: "uuid" };
    case DuckDBTypeId.DATE:
      return { kind: "date" };
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIME_NS:
      return { kind: "time" };
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return { kind: "timestamp" };
    case DuckDBTypeId.TIMESTAMP_TZ:
      return { kind: "timestamptz" };
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
      return { kind: "list", element: logicalTypeOf(type.valueType) };
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.UNION:
      return { kind: "json" };
    default:
      return { kind: "text" };
  }
}

/** Whether a column's values arrive as they are stored for its logical type, with no cast. */
export function isCanonical(type: DuckDBType): boolean {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
    case DuckDBTypeId.DECIMAL:
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.BLOB:
    case DuckDBTypeId.UUID:
    case DuckDBTypeId.DATE:
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ:
      return true;
    case DuckDBTypeId.LIST:
      return isCanonical(type.valueType);
    default:
      return false;
  }
}

/** The SQL reading a column as its logical type's DuckDB type. */
export function readExpression(column: string, type: DuckDBType): string {
  const quoted = quoteIdent(column);
  return isCanonical(type) ? quoted : `CAST(${quoted} AS ${duckdbTypeSql(logicalTypeOf(type))})`;
}

const INTEGER_RANK: Partial<Record<LogicalType["kind"], number>> = { int16: 1, int32: 2, int64: 3 };

/**
 * Whether values of `incoming` can be written into an existing column of type `existing` with
 * nothing lost: the same type, a wider integer or float, a decimal with at least as many digits
 * on each side of the point, text holding any string-valued type (decimal, uuid, json), and
 * timestamp with or without zone (both are microseconds UTC to sqlload).
 */
export function fitsColumn(existing: DuckDBType, incoming: LogicalType): boolean {
  const physical = logicalTypeOf(existing);
  // Columns of other DuckDB types (made by hand) would need a cast on every write: refuse them.
  if (!isCanonical(existing)) return false;
  if (duckdbTypeSql(physical) === duckdbTypeSql(incoming)) return true;
  const from = INTEGER_RANK[incoming.kind];
  const to = INTEGER_RANK[physical.kind];
  if (from !== undefined && to !== undefined) return from <= to;
  switch (physical.kind) {
    case "float64":
      return incoming.kind === "float32";
    case "decimal":
      return (
        incoming.kind === "decimal" &&
        incoming.scale <= physical.scale &&
        incoming.precision - incoming.scale <= physical.precision - physical.scale
      );
    case "text":
      return incoming.kind === "decimal" || incoming.kind === "uuid" || incoming.kind === "json";
    case "timestamp":
    case "timestamptz":
      return incoming.kind === "timestamp" || incoming.kind === "timestamptz";
    case "list":
      return (
        incoming.kind === "list" && existing.typeId === DuckDBTypeId.LIST && fitsColumn(existing.valueType, incoming.element)
      );
    default:
      return false;
  }
}

/** A column by name: exactly, else as DuckDB resolves names (ignoring case). */
export function findColumn<T extends { readonly name: string }>(columns: readonly T[], name: string): T | undefined {
  return columns.find((c) => c.name === name) ?? columns.find((c) => c.name.toLowerCase() === name.toLowerCase());
}
