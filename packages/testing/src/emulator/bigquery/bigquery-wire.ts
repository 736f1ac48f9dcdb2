import type { DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { EmulatorError } from "../emulator-error.js";
import { daysToIso, microsToIso, type PlainValue, plainValue } from "../plain-values.js";
import type { Field } from "./bigquery-catalog.js";

/** The BigQuery field of a DuckDB result column (for queries whose columns are not a table's). */
export function fieldOfDuckType(name: string, type: DuckDBType): Field {
  const text = type.toString();
  const list = /^(.*)\[\]$/.exec(text);
  if (list) return { ...fieldOfDuckType(name, { toString: () => list[1] } as DuckDBType), mode: "REPEATED" };
  const decimal = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(text);
  if (decimal) return { name, type: "NUMERIC", precision: decimal[1], scale: decimal[2], mode: "NULLABLE" };
  const map: Record<string, string> = {
    BIGINT: "INT64",
    INTEGER: "INT64",
    HUGEINT: "INT64",
    VARCHAR: "STRING",
    DOUBLE: "FLOAT64",
    BOOLEAN: "BOOL",
    BLOB: "BYTES",
    DATE: "DATE",
    TIME: "TIME",
    TIMESTAMP: "DATETIME",
    "TIMESTAMP WITH TIME ZONE": "TIMESTAMP",
    JSON: "JSON",
  };
  const bq = map[text];
  if (!bq) throw new EmulatorError("unsupported", `the emulator cannot return DuckDB type ${text}`);
  return { name, type: bq, mode: "NULLABLE" };
}

export type Cell = { v: string | null | Cell[] };

/**
 * A value as BigQuery's JSON rows carry it: everything as a string (INT64 too, so no client
 * reads it through a double), TIMESTAMP as int64 microseconds (`formatOptions.useInt64Timestamp`),
 * BYTES as base64, arrays as lists of cells.
 */
export function encodeCell(field: Field, value: DuckDBValue): Cell {
  // plainValue has no TIME; DuckDB prints it as BigQuery does (HH:MM:SS[.ffffff]).
  if (field.type === "TIME" && field.mode !== "REPEATED" && value !== null) return { v: String(value) };
  const plain = plainValue(value);
  if (plain === null) return { v: field.mode === "REPEATED" ? [] : null };
  if (field.mode === "REPEATED") {
    return { v: (plain as PlainValue[]).map((item) => ({ v: scalar({ ...field, mode: "NULLABLE" }, item) })) };
  }
  return { v: scalar(field, plain) };
}

function scalar(field: Field, plain: PlainValue): string | null {
  if (plain === null) return null;
  if (plain instanceof Uint8Array) return Buffer.from(plain).toString("base64");
  if (typeof plain === "object" && !Array.isArray(plain)) {
    const p = plain as Exclude<PlainValue, null | boolean | number | bigint | string | Uint8Array | readonly PlainValue[]>;
    if (p.kind === "date") return daysToIso(p.days);
    if (p.kind === "decimal") return p.text;
    if (p.kind === "timestamp") {
      if (field.type === "TIMESTAMP") return String(p.micros);
      return microsToIso(p.micros).replace(/Z$/, "");
    }
  }
  if (typeof plain === "number") return Number.isNaN(plain) ? "NaN" : String(plain);
  if (typeof plain === "bigint" || typeof plain === "boolean") return String(plain);
  if (typeof plain === "string") return plain;
  return JSON.stringify(plain);
}

/**
 * The SQL that stores one NDJSON value in a column, and the text parameter it takes: every value
 * goes in as text and is CAST by DuckDB, so nothing passes through a double. INT64 given as a
 * JSON number beyond 2^53 is refused: it was already rounded by whoever wrote it.
 */
export function loadValue(field: Field, value: unknown): { sql: (p: string) => string; param: string | null } {
  if (value === null || value === undefined) return { sql: (p) => p, param: null };
  if (field.mode === "REPEATED") {
    if (!Array.isArray(value)) throw new EmulatorError("not_allowed", `Array specified for non-repeated field: ${field.name}`);
    const items = value.map((item) => textOf({ ...field, mode: "NULLABLE" }, item));
    if (items.some((i) => i === null)) throw new EmulatorError("not_allowed", `Array ${field.name} cannot have a null element`);
    const element = castType(field);
    return { sql: (p) => `CAST(from_json(${p}, '["VARCHAR"]') AS ${element}[])`, param: JSON.stringify(items) };
  }
  const text = textOf(field, value);
  if (field.type === "BYTES") return { sql: (p) => `from_base64(${p})`, param: text };
  return { sql: (p) => `CAST(${p} AS ${castType(field)})`, param: text };
}

function castType(field: Field): string {
  const map: Record<string, string> = {
    BOOL: "BOOLEAN",
    INT64: "BIGINT",
    FLOAT64: "DOUBLE",
    STRING: "VARCHAR",
    BYTES: "BLOB",
    JSON: "JSON",
    DATE: "DATE",
    TIME: "TIME",
    DATETIME: "TIMESTAMP",
    TIMESTAMP: "TIMESTAMPTZ",
  };
  if (field.type === "NUMERIC" || field.type === "BIGNUMERIC") return `DECIMAL(${field.precision ?? 38}, ${field.scale ?? 9})`;
  const t = map[field.type];
  if (!t) throw new EmulatorError("unsupported", `the emulator cannot load type ${field.type}`);
  return t;
}

function textOf(field: Field, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (field.type === "JSON") return JSON.stringify(value);
  if (field.type === "INT64" && typeof value === "number" && !Number.isSafeInteger(value)) {
    throw new EmulatorError(
      "not_allowed",
      `INT64 value ${value} of ${field.name} came as a JSON number beyond 2^53: send integers as strings`,
    );
  }
  if (typeof value === "object")
    throw new EmulatorError("not_allowed", `Cannot convert a JSON object to ${field.type} for ${field.name}`);
  return String(value);
}
