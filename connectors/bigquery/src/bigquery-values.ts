import {
  type Column,
  formatDays,
  formatMicros,
  isNull,
  type LogicalType,
  parseTimestampMicros,
  type RecordBatch,
  SqlloadError,
} from "@sqlload/core";
import type { FieldSchema } from "./bigquery-types.js";

/**
 * One row of a batch as a line of newline-delimited JSON for a load job. Integers and decimals
 * travel as JSON strings (a JSON number would pass through a double somewhere), floats keep
 * NaN and ±Infinity as BigQuery's strings, bytes are base64, JSON columns carry the document
 * itself, dates and times are BigQuery's canonical text.
 */
export function ndjsonLine(batch: RecordBatch, row: number, table: string): string {
  const parts: string[] = [];
  batch.schema.forEach((column, c) => {
    const vector = batch.columns[c];
    if (!vector || isNull(vector, row)) return;
    parts.push(`${JSON.stringify(column.name)}:${encodeValue(column, column.type, vector.values[row], row, table)}`);
  });
  return `{${parts.join(",")}}`;
}

function encodeValue(column: Column, type: LogicalType, value: unknown, row: number, table: string): string {
  switch (type.kind) {
    case "boolean":
      return value === 1 || value === true ? "true" : "false";
    case "int16":
    case "int32":
    case "int64":
    case "decimal":
      return `"${String(value)}"`;
    case "float32":
    case "float64": {
      const n = value as number;
      if (Number.isNaN(n)) return '"NaN"';
      if (!Number.isFinite(n)) return n > 0 ? '"Infinity"' : '"-Infinity"';
      return JSON.stringify(n);
    }
    case "text":
    case "uuid":
      return JSON.stringify(value);
    case "json":
      return value as string;
    case "bytes":
      return `"${Buffer.from(value as Uint8Array).toString("base64")}"`;
    case "date":
      return `"${formatDays(value as number)}"`;
    case "time":
      return `"${formatMicros(value as bigint).slice(11, 26)}"`;
    case "timestamp":
      return `"${formatMicros(value as bigint).slice(0, 26)}"`;
    case "timestamptz":
      return `"${formatMicros(value as bigint)}:00"`;
    case "list": {
      const items = value as readonly unknown[];
      if (items.some((item) => item === null || item === undefined)) {
        throw new SqlloadError(
          "SL300",
          `row ${row + 1} of ${table}: column "${column.name}" holds a NULL inside a list, which a BigQuery ARRAY cannot hold`,
          { table },
        );
      }
      return `[${items.map((item) => encodeValue(column, type.element, item, row, table)).join(",")}]`;
    }
  }
}

/** A cell of a query result (`rows[].f[].v`, read with `formatOptions.useInt64Timestamp`). */
export type RawCell = string | null | readonly { readonly v: RawCell }[];

/**
 * The exact value of a result cell: INT64 as bigint, TIMESTAMP and DATETIME as microseconds
 * (bigint), NUMERIC and BIGNUMERIC as their decimal text, FLOAT64 as a number (NaN, ±Infinity
 * included), BYTES as bytes, DATE, TIME and JSON as text, arrays element by element. The
 * client's own parsing is skipped: it would make Big.js numbers and millisecond dates.
 */
export function decodeCell(field: FieldSchema, cell: RawCell): unknown {
  if (cell === null || cell === undefined) return null;
  if (field.mode === "REPEATED") {
    return (cell as readonly { v: RawCell }[]).map((item) => decodeCell({ ...field, mode: "NULLABLE" }, item.v));
  }
  const text = cell as string;
  switch (field.type) {
    case "INT64":
    case "INTEGER":
      return BigInt(text);
    case "FLOAT64":
    case "FLOAT":
      return Number(text);
    case "BOOL":
    case "BOOLEAN":
      return text.toLowerCase() === "true";
    case "BYTES":
      return new Uint8Array(Buffer.from(text, "base64"));
    case "TIMESTAMP":
      return /^-?\d+$/.test(text) ? BigInt(text) : parseTimestampMicros(text);
    case "DATETIME":
      return parseTimestampMicros(`${text.replace(" ", "T")}Z`);
    default:
      return text;
  }
}

/** Result rows as objects keyed by field name. */
export function decodeRows(
  fields: readonly FieldSchema[],
  rows: readonly { readonly f: readonly { readonly v: RawCell }[] }[],
): Record<string, unknown>[] {
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    fields.forEach((field, i) => {
      out[field.name] = decodeCell(field, row.f[i]?.v ?? null);
    });
    return out;
  });
}
