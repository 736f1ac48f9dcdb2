import type { DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { type CursorValue, SqlloadError } from "@sqlload/core";
import {
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBListValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTimeValue,
  DuckDBTypeId,
  DuckDBUUIDValue,
} from "./duckdb-client.js";

/**
 * Conversions between RecordBatch storage values (see core's record-batch.ts) and the values the
 * DuckDB client puts in and takes out of vectors. Only the canonical types of duckdb-dialect.ts
 * occur: sqlload creates its tables with them, and a source reads other types through a cast.
 */
export type ToDuckDB = (value: unknown) => DuckDBValue;
export type FromDuckDB = (value: DuckDBValue) => unknown;

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
      throw new SqlloadError("SL305", `sqlload does not write DuckDB columns of type ${type.toString()}`);
  }
}

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
        // A Buffer from the client; hand out a plain Uint8Array over the same (already copied) memory.
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
      throw new SqlloadError("SL304", `sqlload does not read DuckDB values of type ${type.toString()} without a cast`);
  }
}

/** A cursor value as a DuckDB parameter of the column's own type, so no time zone cast comes between. */
export function cursorParameter(value: CursorValue, withZone: boolean): DuckDBValue {
  switch (value.kind) {
    case "integer":
      return value.value;
    case "date":
      return new DuckDBDateValue(value.value);
    case "timestamp":
      return withZone ? new DuckDBTimestampTZValue(value.value) : new DuckDBTimestampValue(value.value);
    case "text":
      return value.value;
  }
}

/** A column's value as a cursor value, or undefined when the column cannot hold that kind. */
export function cursorFromDuckDB(kind: CursorValue["kind"], type: DuckDBType, value: DuckDBValue): CursorValue | undefined {
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

/**
 * `"-12.34"` at scale 2 → `-1234n`: exact digits. A value with more fraction digits than the
 * column keeps (other than trailing zeros) is refused rather than rounded: a load never changes
 * a number silently.
 */
export function scaleDecimal(text: string, scale: number): bigint {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m || (m[2] === "" && !m[3])) throw new RangeError(`${JSON.stringify(text)} is not a decimal number`);
  const fraction = m[3] ?? "";
  if (/[1-9]/.test(fraction.slice(scale))) {
    throw new RangeError(`${text} has more than ${scale} decimal places and would be rounded; give the column a larger scale`);
  }
  const digits = BigInt(`${m[2] || "0"}${fraction.slice(0, scale).padEnd(scale, "0")}`);
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
