import type { Column, LogicalType } from "@sqlload/core";

/** A column as BigQuery's REST API describes it (`TableFieldSchema`). */
export interface FieldSchema {
  readonly name: string;
  readonly type: string;
  readonly mode?: "NULLABLE" | "REQUIRED" | "REPEATED" | undefined;
  readonly precision?: string | undefined;
  readonly scale?: string | undefined;
  readonly collation?: string | undefined;
  readonly fields?: readonly FieldSchema[] | undefined;
}

/** NUMERIC holds 29 integer digits and 9 decimals; anything wider needs BIGNUMERIC (38 decimals, 76 digits). */
const NUMERIC_INTEGER_DIGITS = 29;
const NUMERIC_SCALE = 9;
const BIGNUMERIC_SCALE = 38;

/**
 * The BigQuery type of a logical type. Integers of every width are INT64 and floats FLOAT64 (the
 * only ones BigQuery has); uuid is STRING; a timestamp without zone is DATETIME, with zone
 * TIMESTAMP; decimals are NUMERIC(p,s) when they fit and BIGNUMERIC(p,s) otherwise.
 */
export function bigqueryType(type: LogicalType): { type: string; precision?: string; scale?: string } {
  switch (type.kind) {
    case "boolean":
      return { type: "BOOL" };
    case "int16":
    case "int32":
    case "int64":
      return { type: "INT64" };
    case "float32":
    case "float64":
      return { type: "FLOAT64" };
    case "decimal": {
      const numeric = type.scale <= NUMERIC_SCALE && type.precision - type.scale <= NUMERIC_INTEGER_DIGITS;
      if (!numeric && type.scale > BIGNUMERIC_SCALE) {
        throw new RangeError(`decimal(${type.precision},${type.scale}) has more than ${BIGNUMERIC_SCALE} decimals`);
      }
      return { type: numeric ? "NUMERIC" : "BIGNUMERIC", precision: String(type.precision), scale: String(type.scale) };
    }
    case "text":
    case "uuid":
      return { type: "STRING" };
    case "bytes":
      return { type: "BYTES" };
    case "json":
      return { type: "JSON" };
    case "date":
      return { type: "DATE" };
    case "time":
      return { type: "TIME" };
    case "timestamp":
      return { type: "DATETIME" };
    case "timestamptz":
      return { type: "TIMESTAMP" };
    case "list":
      if (type.element.kind === "list") throw new RangeError("BigQuery has no arrays of arrays");
      return bigqueryType(type.element);
  }
}

/**
 * The field of a column. A list is a REPEATED field: BigQuery arrays hold no NULL element and a
 * NULL array reads as an empty one, so a list column is never REQUIRED.
 */
export function fieldOf(column: Column): FieldSchema {
  const mode = column.type.kind === "list" ? "REPEATED" : column.nullable ? "NULLABLE" : "REQUIRED";
  return { name: column.name, ...bigqueryType(column.type), mode };
}

/** The logical type of a BigQuery field, and whether it may be NULL. */
export function columnOf(field: FieldSchema): Column {
  const element = logicalOf(field);
  const type: LogicalType = field.mode === "REPEATED" ? { kind: "list", element } : element;
  return { name: field.name, type, nullable: field.mode !== "REQUIRED" };
}

function logicalOf(field: FieldSchema): LogicalType {
  switch (field.type) {
    case "BOOL":
    case "BOOLEAN":
      return { kind: "boolean" };
    case "INT64":
    case "INTEGER":
      return { kind: "int64" };
    case "FLOAT64":
    case "FLOAT":
      return { kind: "float64" };
    case "NUMERIC":
      return { kind: "decimal", precision: Number(field.precision ?? 38), scale: Number(field.scale ?? 9) };
    case "BIGNUMERIC":
      return { kind: "decimal", precision: Number(field.precision ?? 76), scale: Number(field.scale ?? 38) };
    case "STRING":
      return { kind: "text" };
    case "BYTES":
      return { kind: "bytes" };
    case "JSON":
      return { kind: "json" };
    case "DATE":
      return { kind: "date" };
    case "TIME":
      return { kind: "time" };
    case "DATETIME":
      return { kind: "timestamp" };
    case "TIMESTAMP":
      return { kind: "timestamptz" };
    default:
      // GEOGRAPHY, INTERVAL, RANGE, RECORD: kept as text, which is how sqlload would read them.
      return { kind: "text" };
  }
}

/** The SQL type name of a field, as DDL and CAST write it. */
export function typeSql(field: FieldSchema): string {
  const base = field.precision !== undefined ? `${field.type}(${field.precision}, ${field.scale ?? 0})` : field.type;
  return field.mode === "REPEATED" ? `ARRAY<${base}>` : base;
}

/**
 * Whether an existing field can take the values of a new column without loss: the same type,
 * or a decimal whose integer digits and scale both widen (BigQuery can widen NUMERIC to
 * BIGNUMERIC and raise precision, not lower it), and the same repetition.
 */
export function fieldFits(existing: FieldSchema, wanted: FieldSchema): boolean {
  if ((existing.mode === "REPEATED") !== (wanted.mode === "REPEATED")) return false;
  const decimal = (t: string) => t === "NUMERIC" || t === "BIGNUMERIC";
  if (decimal(existing.type) && decimal(wanted.type)) {
    const e = columnOf(existing).type;
    const w = columnOf(wanted).type;
    if (e.kind !== "decimal" || w.kind !== "decimal") return false;
    return e.scale >= w.scale && e.precision - e.scale >= w.precision - w.scale;
  }
  const canonical = (t: string) => ({ BOOLEAN: "BOOL", INTEGER: "INT64", FLOAT: "FLOAT64" })[t] ?? t;
  return canonical(existing.type) === canonical(wanted.type);
}
