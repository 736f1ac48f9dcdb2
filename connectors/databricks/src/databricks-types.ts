import { type Column, formatDays, type LogicalType, SqlloadError } from "@sqlload/core";

/**
 * Logical types → Delta column types. Databricks has no TIME, UUID or JSON column type: they are
 * kept as STRING (time as `HH:MM:SS.ffffff`), and read back as text. TIMESTAMP is an instant
 * (timestamptz); TIMESTAMP_NTZ is wall-clock (timestamp). DECIMAL holds up to 38 digits.
 */
export function databricksType(type: LogicalType): string {
  switch (type.kind) {
    case "boolean":
      return "BOOLEAN";
    case "int16":
      return "SMALLINT";
    case "int32":
      return "INT";
    case "int64":
      return "BIGINT";
    case "float32":
      return "FLOAT";
    case "float64":
      return "DOUBLE";
    case "decimal":
      if (type.precision > 38) {
        throw new SqlloadError(
          "SL302",
          `decimal(${type.precision},${type.scale}) does not fit Databricks' DECIMAL (38 digits at most)`,
        );
      }
      return `DECIMAL(${type.precision},${type.scale})`;
    case "text":
    case "uuid":
    case "json":
    case "time":
      return "STRING";
    case "bytes":
      return "BINARY";
    case "date":
      return "DATE";
    case "timestamp":
      return "TIMESTAMP_NTZ";
    case "timestamptz":
      return "TIMESTAMP";
    case "list":
      return `ARRAY<${databricksType(type.element)}>`;
  }
}

/** `information_schema.columns.full_data_type` → the logical type the connector reads it as. */
export function logicalTypeOf(fullDataType: string): LogicalType {
  const t = fullDataType.trim().toLowerCase();
  const array = /^array<(.+)>$/.exec(t);
  if (array) return { kind: "list", element: logicalTypeOf(array[1] as string) };
  const decimal = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
  if (decimal) return { kind: "decimal", precision: Number(decimal[1]), scale: Number(decimal[2]) };
  const simple: Record<string, LogicalType> = {
    boolean: { kind: "boolean" },
    tinyint: { kind: "int16" },
    smallint: { kind: "int16" },
    int: { kind: "int32" },
    bigint: { kind: "int64" },
    float: { kind: "float32" },
    double: { kind: "float64" },
    string: { kind: "text" },
    binary: { kind: "bytes" },
    date: { kind: "date" },
    timestamp_ntz: { kind: "timestamp" },
    timestamp: { kind: "timestamptz" },
  };
  if (/^(var)?char\(\d+\)$/.test(t)) return { kind: "text" };
  const type = simple[t];
  if (!type) throw new SqlloadError("SL302", `the Databricks column type ${fullDataType} has no sqlload type`);
  return type;
}

/** The column as the table will hold it (what `ensureTable` returns and `describeTable` reads). */
export function storedColumn(column: Column): Column {
  return { ...column, type: logicalTypeOf(databricksType(column.type)) };
}

/**
 * One value as a STRING parameter, and the SQL that turns the parameter into the column's type.
 * `value` is in the record batch's storage (bigint micros, day numbers, exact decimal text, …).
 */
export function parameterText(type: LogicalType, value: unknown): string {
  switch (type.kind) {
    case "boolean":
      return value ? "true" : "false";
    case "int16":
    case "int32":
    case "int64":
      return String(value);
    case "float32":
    case "float64":
      return Object.is(value, -0) ? "-0.0" : String(value);
    case "bytes":
      return Buffer.from(value as Uint8Array).toString("hex");
    case "date":
      return formatDays(Number(value));
    case "time":
      return timeText(value as bigint);
    case "timestamp":
      return timestampText(value as bigint);
    case "timestamptz":
      return `${timestampText(value as bigint)}Z`;
    case "list": {
      // A JSON array of each element's own parameter text, cast element by element in SQL.
      const element = type.element;
      return JSON.stringify((value as readonly unknown[]).map((v) => (v === null ? null : parameterText(element, v))));
    }
    default:
      return String(value);
  }
}

/** The SQL that reads a STRING parameter marker as a value of `type`. */
export function parameterSql(type: LogicalType, marker: string): string {
  switch (type.kind) {
    case "text":
    case "uuid":
    case "json":
    case "time":
      return marker;
    case "bytes":
      return `unhex(${marker})`;
    case "list":
      return listSql(type.element, marker, 0);
    default:
      return `CAST(${marker} AS ${databricksType(type)})`;
  }
}

/**
 * A list parameter is a JSON array of its elements' own parameter texts (a nested list's element
 * is the JSON text of that list): parsed as ARRAY<STRING>, then cast as a whole where the
 * element is a plain type, else element by element (`transform`), one lambda variable per level.
 */
function listSql(element: LogicalType, text: string, depth: number): string {
  const strings = `from_json(${text}, 'ARRAY<STRING>')`;
  if (element.kind !== "list" && element.kind !== "bytes") return `CAST(${strings} AS ARRAY<${databricksType(element)}>)`;
  const x = `x${depth}`;
  return `transform(${strings}, ${x} -> ${element.kind === "bytes" ? `unhex(${x})` : listSql(element.element, x, depth + 1)})`;
}

const pad = (n: bigint | number, width: number) => String(n).padStart(width, "0");

/** `2026-10-12 16:00:00.123456` of microseconds since the epoch (UTC), exactly. */
export function timestampText(micros: bigint): string {
  const day = 86_400_000_000n;
  const days = micros >= 0n ? micros / day : -((-micros + day - 1n) / day);
  return `${formatDays(Number(days))} ${timeText(micros - days * day)}`;
}

function timeText(micros: bigint): string {
  const seconds = micros / 1_000_000n;
  return `${pad(seconds / 3600n, 2)}:${pad((seconds % 3600n) / 60n, 2)}:${pad(seconds % 60n, 2)}.${pad(micros % 1_000_000n, 6)}`;
}
