import { createRequire } from "node:module";
import type { StatementResult } from "../duckdb-executor.js";
import { daysToIso, microsToIso, type PlainValue, plainValue } from "../plain-values.js";

const require = createRequire(import.meta.url);
// The driver's own generated Thrift types: what it decodes is what the emulator encodes.
export const ttypes = require("@databricks/sql/thrift/TCLIService_types.js") as ThriftTypes;
const Int64 = require("node-int64") as new (value: number | string) => unknown;

type ThriftName =
  | "TStatus"
  | "TStatusCode"
  | "TOpenSessionResp"
  | "TProtocolVersion"
  | "TSessionHandle"
  | "THandleIdentifier"
  | "TCloseSessionResp"
  | "TCloseOperationResp"
  | "TCancelOperationResp"
  | "TGetOperationStatusResp"
  | "TOperationState"
  | "TExecuteStatementResp"
  | "TOperationHandle"
  | "TOperationType"
  | "TSparkDirectResults"
  | "TGetResultSetMetadataResp"
  | "TSparkRowSetType"
  | "TFetchResultsResp"
  | "TTableSchema"
  | "TColumnDesc"
  | "TTypeDesc"
  | "TTypeEntry"
  | "TPrimitiveTypeEntry"
  | "TTypeId"
  | "TRowSet"
  | "TColumn"
  | "TBoolColumn"
  | "TI32Column"
  | "TI64Column"
  | "TDoubleColumn"
  | "TStringColumn";

/** The generated module: struct constructors and enums (name → number) the emulator uses. */
export type ThriftTypes = Readonly<Record<ThriftName, (new (args?: object) => object) & Readonly<Record<string, number>>>>;

type Encoded = { readonly typeName: string; readonly field: string; readonly value: (v: PlainValue) => unknown };

/** How one DuckDB column travels in a `COLUMN_BASED_SET`: the Thrift type and column field. */
function encodingOf(duckdbType: string): Encoded {
  switch (duckdbType) {
    case "BOOLEAN":
      return { typeName: "BOOLEAN_TYPE", field: "boolVal", value: (v) => v === true };
    case "TINYINT":
    case "SMALLINT":
    case "INTEGER":
      return { typeName: "INT_TYPE", field: "i32Val", value: (v) => Number(v) };
    case "BIGINT":
      return { typeName: "BIGINT_TYPE", field: "i64Val", value: (v) => new Int64(Number(v)) };
    case "FLOAT":
    case "DOUBLE":
      return { typeName: "DOUBLE_TYPE", field: "doubleVal", value: (v) => Number(v) };
    default:
      // A map travels as JSON text, which the driver parses for MAP_TYPE columns (a staging answer's `headers`).
      if (duckdbType.startsWith("MAP(")) return { typeName: "MAP_TYPE", field: "stringVal", value: (v) => asText(v) };
      return { typeName: "STRING_TYPE", field: "stringVal", value: (v) => asText(v) };
  }
}

function asText(value: PlainValue): string {
  if (value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString("hex");
  if (Array.isArray(value)) return JSON.stringify(value.map((v) => asText(v)));
  const v = value as Exclude<PlainValue, readonly PlainValue[] | null | string | number | bigint | boolean | Uint8Array>;
  if (v.kind === "date") return daysToIso(v.days);
  if (v.kind === "timestamp") return microsToIso(v.micros);
  if (v.kind === "decimal") return v.text;
  return JSON.stringify(v.entries);
}

function nullBitmap(values: readonly PlainValue[]): Buffer {
  const bits = Buffer.alloc(Math.ceil(values.length / 8));
  values.forEach((v, i) => {
    if (v === null) bits[i >> 3] = (bits[i >> 3] as number) | (1 << (i & 7));
  });
  return bits;
}

/** The result's schema, as `TGetResultSetMetadataResp.schema`. */
export function resultSchema(result: StatementResult): unknown {
  return new ttypes.TTableSchema({
    columns: result.columns.map(
      (c, position) =>
        new ttypes.TColumnDesc({
          columnName: c.name,
          position: position + 1,
          typeDesc: new ttypes.TTypeDesc({
            types: [
              new ttypes.TTypeEntry({
                primitiveEntry: new ttypes.TPrimitiveTypeEntry({
                  type: (ttypes.TTypeId as Readonly<Record<string, number>>)[encodingOf(c.type.toString()).typeName],
                }),
              }),
            ],
          }),
        }),
    ),
  });
}

/** The rows as one `COLUMN_BASED_SET` row set. */
export function resultRowSet(result: StatementResult): unknown {
  const columns = result.columns.map((c, i) => {
    const encoding = encodingOf(c.type.toString());
    const values = result.rows.map((row) => plainValue(row[i] ?? null));
    const Column = ttypes[`T${encoding.field.slice(0, 1).toUpperCase()}${encoding.field.slice(1, -3)}Column` as ThriftName];
    const typed = new Column({
      values: values.map((v) => (v === null ? encoding.value(encoding.field === "stringVal" ? "" : 0) : encoding.value(v))),
      nulls: nullBitmap(values),
    });
    return new ttypes.TColumn({ [encoding.field]: typed });
  });
  return new ttypes.TRowSet({ startRowOffset: new Int64(0), rows: [], columns });
}
