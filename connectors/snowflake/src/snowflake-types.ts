import { formatDays, type LogicalType } from "@sqlload/core";
import { microsText } from "./snowflake-dialect.js";

/**
 * The Snowflake column type of a logical type. Integers keep their width as NUMBER precision so a
 * table read back describes as it was created; `timestamp` (no zone, taken as UTC) is
 * TIMESTAMP_NTZ(6) and `timestamptz` TIMESTAMP_TZ(6); JSON is VARIANT and lists are ARRAY.
 */
export function snowflakeTypeSql(type: LogicalType): string {
  switch (type.kind) {
    case "boolean":
      return "BOOLEAN";
    case "int16":
      return "NUMBER(5,0)";
    case "int32":
      return "NUMBER(10,0)";
    case "int64":
      return "NUMBER(19,0)";
    case "decimal":
      return `NUMBER(${type.precision},${type.scale})`;
    case "float32":
    case "float64":
      return "FLOAT";
    case "text":
      return "VARCHAR";
    case "uuid":
      return "VARCHAR(36)";
    case "bytes":
      return "BINARY";
    case "json":
      return "VARIANT";
    case "date":
      return "DATE";
    case "time":
      return "TIME(6)";
    case "timestamp":
      return "TIMESTAMP_NTZ(6)";
    case "timestamptz":
      return "TIMESTAMP_TZ(6)";
    case "list":
      return "ARRAY";
  }
}

/** One row of `INFORMATION_SCHEMA.COLUMNS`, as the catalog query reads it. */
export interface CatalogColumn {
  readonly name: string;
  readonly dataType: string;
  readonly precision: number | null;
  readonly scale: number | null;
  readonly nullable: boolean;
  readonly collation: string | null;
}

/**
 * The logical type a Snowflake column reads as. NUMBER(5|10|19,0) are the integers sqlload creates;
 * other scale-0 NUMBERs (INTEGER is NUMBER(38,0)) stay exact decimals. An ARRAY's elements are
 * untyped VARIANTs, read as JSON.
 */
export function logicalTypeOf(column: Pick<CatalogColumn, "dataType" | "precision" | "scale">): LogicalType {
  const type = column.dataType.toUpperCase();
  switch (type) {
    case "NUMBER":
    case "DECIMAL":
    case "NUMERIC": {
      const precision = column.precision ?? 38;
      const scale = column.scale ?? 0;
      if (scale === 0 && precision === 5) return { kind: "int16" };
      if (scale === 0 && precision === 10) return { kind: "int32" };
      if (scale === 0 && precision === 19) return { kind: "int64" };
      return { kind: "decimal", precision, scale };
    }
    case "FLOAT":
    case "DOUBLE":
    case "REAL":
      return { kind: "float64" };
    case "TEXT":
    case "VARCHAR":
    case "STRING":
      return { kind: "text" };
    case "BOOLEAN":
      return { kind: "boolean" };
    case "BINARY":
      return { kind: "bytes" };
    case "VARIANT":
    case "OBJECT":
      return { kind: "json" };
    case "ARRAY":
      return { kind: "list", element: { kind: "json" } };
    case "DATE":
      return { kind: "date" };
    case "TIME":
      return { kind: "time" };
    case "TIMESTAMP_NTZ":
      return { kind: "timestamp" };
    case "TIMESTAMP_TZ":
    case "TIMESTAMP_LTZ":
      return { kind: "timestamptz" };
    default:
      return { kind: "text" };
  }
}

/**
 * Whether an existing column of type `existing` holds every value of `wanted` exactly: the same
 * Snowflake type, a wider NUMBER of the same scale, or VARCHAR for text of any length.
 */
export function fitsColumn(existing: CatalogColumn, wanted: LogicalType): boolean {
  const target = snowflakeTypeSql(wanted);
  const type = existing.dataType.toUpperCase();
  const number = /^NUMBER\((\d+),(\d+)\)$/.exec(target);
  if (number) {
    if (!["NUMBER", "DECIMAL", "NUMERIC"].includes(type)) return false;
    const [p, s] = [Number(number[1]), Number(number[2])];
    const scale = existing.scale ?? 0;
    return scale === s && (existing.precision ?? 38) - scale >= p - s;
  }
  if (target.startsWith("VARCHAR")) return ["TEXT", "VARCHAR", "STRING"].includes(type);
  if (wanted.kind === "list") return type === "ARRAY";
  if (wanted.kind === "json") return type === "VARIANT" || type === "OBJECT" || type === "ARRAY";
  if (wanted.kind === "timestamptz") return type === "TIMESTAMP_TZ" || type === "TIMESTAMP_LTZ";
  return target.replace(/\(.*\)$/, "") === type;
}

/**
 * The SQL turning a staged text value into the column's type. The stage holds every column as
 * VARCHAR, filled by array binds of text, so no value passes through a JavaScript number.
 */
export function fromStageText(type: LogicalType, expression: string): string {
  switch (type.kind) {
    case "boolean":
      return `TO_BOOLEAN(${expression})`;
    case "int16":
    case "int32":
    case "int64":
    case "decimal": {
      const [, p, s] = /^NUMBER\((\d+),(\d+)\)$/.exec(snowflakeTypeSql(type)) ?? [];
      return `TO_NUMBER(${expression}, ${p}, ${s})`;
    }
    case "float32":
    case "float64":
      return `TO_DOUBLE(${expression})`;
    case "text":
    case "uuid":
      return expression;
    case "bytes":
      return `HEX_DECODE_BINARY(${expression})`;
    case "json":
      return `PARSE_JSON(${expression})`;
    case "list":
      return `TO_ARRAY(PARSE_JSON(${expression}))`;
    case "date":
      return `TO_DATE(${expression})`;
    case "time":
      return `TO_TIME(${expression})`;
    case "timestamp":
      return `TO_TIMESTAMP_NTZ(${expression})`;
    case "timestamptz":
      return `TO_TIMESTAMP_TZ(${expression})`;
  }
}

/** A batch cell (in its storage form) as the text `fromStageText` casts back exactly. */
export function stageText(type: LogicalType, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case "boolean":
      return value ? "true" : "false";
    case "float32":
    case "float64": {
      const n = value as number;
      if (Number.isNaN(n)) return "NaN";
      if (n === Number.POSITIVE_INFINITY) return "inf";
      if (n === Number.NEGATIVE_INFINITY) return "-inf";
      return String(n);
    }
    case "bytes":
      return Buffer.from(value as Uint8Array).toString("hex");
    case "date":
      return formatDays(value as number);
    case "time":
      return timeText(value as bigint);
    case "timestamp":
      return microsText(value as bigint);
    case "timestamptz":
      return `${microsText(value as bigint)}+00:00`;
    case "list":
      return listJson(type.element, value as readonly unknown[]);
    default:
      return String(value);
  }
}

function timeText(micros: bigint): string {
  const seconds = Number(micros / 1_000_000n);
  const pad = (n: number) => String(n).padStart(2, "0");
  const fraction = String(micros % 1_000_000n).padStart(6, "0");
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}.${fraction}`;
}

/**
 * A list as JSON text for PARSE_JSON: integers and decimals as bare digits (a VARIANT keeps them
 * exact up to 38 digits), temporal values as their text, nested lists recursively.
 */
function listJson(element: LogicalType, items: readonly unknown[]): string {
  const parts = items.map((item) => {
    if (item === null || item === undefined) return "null";
    switch (element.kind) {
      case "int16":
      case "int32":
      case "int64":
      case "decimal":
        return String(item);
      case "boolean":
        return item ? "true" : "false";
      case "float32":
      case "float64":
        return Number.isFinite(item as number) ? String(item) : JSON.stringify(stageText(element, item));
      case "json":
        return String(item);
      case "timestamp":
      case "timestamptz":
        return JSON.stringify(`${microsText(item as bigint).replace(" ", "T")}Z`);
      case "list":
        return listJson(element.element, item as readonly unknown[]);
      default:
        return JSON.stringify(stageText(element, item));
    }
  });
  return `[${parts.join(",")}]`;
}
