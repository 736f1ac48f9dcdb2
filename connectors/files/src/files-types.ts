import {
  BIGINT,
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBListValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTimeValue,
  type DuckDBType,
  DuckDBTypeId,
  DuckDBUUIDValue,
  type DuckDBValue,
} from "@duckdb/node-api";
import type { CursorKind, CursorValue, LogicalType } from "@sqlload/core";

/**
 * Type mapping between sqlload's logical types and DuckDB's, which is also the mapping to and
 * from Parquet: every file is read and written through DuckDB. Kept in this package (not shared
 * with the DuckDB connector) so each connector owns its dialect.
 */

/** Quotes an identifier, always: file columns may hold quotes, spaces, upper case or keywords. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A SQL string literal. */
export function quoteString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

const MAX_DECIMAL_PRECISION = 38;

/** The DuckDB (and so Parquet) type a logical type is written as. */
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
      // Parquet holds at most 38 digits as a decimal; wider values keep their exact digits as text.
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
 * The logical type of a column as DuckDB reads it from a file. Types without an exact twin map to
 * the nearest one that keeps every value (unsigned and huge integers to a wider integer or an exact
 * decimal, other timestamp units to microseconds, enums and intervals to text, structs and maps to
 * JSON); such columns are read through `readExpression`'s cast.
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

export type ToDuckDB = (value: unknown) => DuckDBValue;
export type FromDuckDB = (value: DuckDBValue) => unknown;

/** A RecordBatch storage value (see core's record-batch.ts) as the value the client puts in a vector. */
export function toDuckDB(type: DuckDBType): ToDuckDB {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return (v) => v === 1 || v === true;
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
      return (v) => Number(v);
    case DuckDBTypeId.BIGINT:
      return (v) => (typeof v === "bigint" ? v : BigInt(v as number));
    case DuckDBTypeId.DECIMAL: {
      const { width, scale } = type;
      const limit = 10n ** BigInt(width);
      return (v) => {
        const scaled = scaleDecimal(String(v), scale);
        if (scaled >= limit || scaled <= -limit) throw new RangeError(`${String(v)} does not fit DECIMAL(${width},${scale})`);
        return new DuckDBDecimalValue(scaled, width, scale);
      };
    }
    case DuckDBTypeId.VARCHAR:
      return (v) => (typeof v === "string" ? v : String(v));
    case DuckDBTypeId.BLOB:
      return (v) => new DuckDBBlobValue(v as Uint8Array);
    case DuckDBTypeId.UUID:
      return (v) => parseUuid(v as string);
    case DuckDBTypeId.DATE:
      return (v) => new DuckDBDateValue(v as number);
    case DuckDBTypeId.TIME:
      return (v) => new DuckDBTimeValue(v as bigint);
    case DuckDBTypeId.TIMESTAMP:
      return (v) => new DuckDBTimestampValue(v as bigint);
    case DuckDBTypeId.TIMESTAMP_TZ:
      return (v) => new DuckDBTimestampTZValue(v as bigint);
    case DuckDBTypeId.LIST: {
      const element = toDuckDB(type.valueType);
      return (v) =>
        new DuckDBListValue((v as readonly unknown[]).map((x) => (x === null || x === undefined ? null : element(x))));
    }
    default:
      throw new TypeError(`sqlload does not write DuckDB columns of type ${type.toString()}`);
  }
}

/** A value the client took out of a vector of a canonical type, as RecordBatch storage. */
export function fromDuckDB(type: DuckDBType): FromDuckDB {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return (v) => (v ? 1 : 0);
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.VARCHAR:
      return (v) => v;
    case DuckDBTypeId.DECIMAL:
      return (v) => decimalText((v as DuckDBDecimalValue).value, (v as DuckDBDecimalValue).scale);
    case DuckDBTypeId.BLOB:
      return (v) => {
        const bytes = (v as DuckDBBlobValue).bytes;
        return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      };
    case DuckDBTypeId.UUID:
      return (v) => (v as DuckDBUUIDValue).toString();
    case DuckDBTypeId.DATE:
      return (v) => (v as DuckDBDateValue).days;
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ:
      return (v) => (v as DuckDBTimestampValue).micros;
    case DuckDBTypeId.LIST: {
      const element = fromDuckDB(type.valueType);
      return (v) => (v as DuckDBListValue).items.map((x) => (x === null ? null : element(x)));
    }
    default:
      throw new TypeError(`sqlload does not read DuckDB values of type ${type.toString()} without a cast`);
  }
}

/** A cursor value as a DuckDB parameter of the column's own type, so no time zone cast comes between. */
export function cursorParameter(value: CursorValue, column: DuckDBType): DuckDBValue {
  switch (value.kind) {
    case "integer":
      return value.value;
    case "date":
      return new DuckDBDateValue(value.value);
    case "timestamp":
      return column.typeId === DuckDBTypeId.TIMESTAMP_TZ
        ? new DuckDBTimestampTZValue(value.value)
        : new DuckDBTimestampValue(value.value);
    case "text":
      return value.value;
  }
}

/** The parameter type to bind a cursor value with: the client would bind a bigint as HUGEINT. */
export function cursorParameterType(value: CursorValue): DuckDBType | undefined {
  return value.kind === "integer" ? BIGINT : undefined;
}

/** A value of a canonical column as a cursor value, or undefined when the column cannot hold that kind. */
export function cursorFromDuckDB(kind: CursorKind, type: DuckDBType, value: DuckDBValue): CursorValue | undefined {
  switch (kind) {
    case "integer":
      return typeof value === "bigint" || typeof value === "number" ? { kind, value: BigInt(value) } : undefined;
    case "date":
      return type.typeId === DuckDBTypeId.DATE ? { kind, value: (value as DuckDBDateValue).days } : undefined;
    case "timestamp":
      return type.typeId === DuckDBTypeId.TIMESTAMP || type.typeId === DuckDBTypeId.TIMESTAMP_TZ
        ? { kind, value: (value as DuckDBTimestampValue).micros }
        : undefined;
    case "text":
      return typeof value === "string" ? { kind, value } : undefined;
  }
}

/** `"-12.345"` at scale 2 → `-1235n`: exact digits, the dropped ones rounded half away from zero. */
export function scaleDecimal(text: string, scale: number): bigint {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m || (m[2] === "" && !m[3])) throw new RangeError(`${JSON.stringify(text)} is not a decimal number`);
  const fraction = m[3] ?? "";
  let digits = BigInt(`${m[2] || "0"}${fraction.slice(0, scale).padEnd(scale, "0")}`);
  if (fraction.length > scale && fraction.charCodeAt(scale) >= 53 /* "5" */) digits += 1n;
  return m[1] === "-" ? -digits : digits;
}

/** `-1235n` at scale 2 → `"-12.35"`. */
export function decimalText(scaled: bigint, scale: number): string {
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(scale + 1, "0");
  const text = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return negative ? `-${text}` : text;
}

function parseUuid(text: string): DuckDBUUIDValue {
  const hex = text.replaceAll("-", "");
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new RangeError(`${JSON.stringify(text)} is not a UUID`);
  return DuckDBUUIDValue.fromUint128(BigInt(`0x${hex}`));
}
