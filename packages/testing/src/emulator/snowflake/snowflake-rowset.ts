import type { StatementResult } from "../duckdb-executor.js";
import { EmulatorError } from "../emulator-error.js";
import { plainValue } from "../plain-values.js";

/** Snowflake's `rowtype` entry of one result column. */
interface RowType {
  readonly name: string;
  readonly type: string;
  readonly precision?: number;
  readonly scale?: number;
  readonly nullable: boolean;
  readonly length?: number;
}

function rowType(name: string, duck: string): RowType {
  const decimal = /^DECIMAL\((\d+),(\d+)\)$/.exec(duck);
  if (decimal) return { name, type: "fixed", precision: Number(decimal[1]), scale: Number(decimal[2]), nullable: true };
  if (["BIGINT", "INTEGER", "HUGEINT", "SMALLINT", "TINYINT", "UBIGINT"].includes(duck))
    return { name, type: "fixed", precision: 38, scale: 0, nullable: true };
  if (duck === "DOUBLE" || duck === "FLOAT") return { name, type: "real", nullable: true };
  if (duck === "VARCHAR") return { name, type: "text", length: 16_777_216, nullable: true };
  if (duck === "BOOLEAN") return { name, type: "boolean", nullable: true };
  if (duck === "DATE") return { name, type: "date", nullable: true };
  if (duck === "TIMESTAMP") return { name, type: "timestamp_ntz", scale: 6, nullable: true };
  if (duck === "BLOB") return { name, type: "binary", nullable: true };
  if (duck === "JSON") return { name, type: "variant", nullable: true };
  throw new EmulatorError("unsupported", `the emulator does not return ${duck} columns (select them as text)`);
}

/** One value in the JSON rowset's text encoding, as the driver decodes it per `rowtype`. */
function encode(value: unknown, type: RowType): string | null {
  const plain = plainValue(value as never);
  if (plain === null) return null;
  switch (type.type) {
    case "fixed":
      return typeof plain === "object" && "text" in plain ? (plain.text as string) : String(plain);
    case "real": {
      const n = plain as number;
      return Number.isNaN(n) ? "NaN" : n === Infinity ? "inf" : n === -Infinity ? "-inf" : String(n);
    }
    case "boolean":
      return plain ? "1" : "0";
    case "date":
      return String((plain as { days: number }).days);
    case "timestamp_ntz": {
      const micros = (plain as { micros: bigint }).micros;
      const seconds = micros / 1_000_000n - (micros % 1_000_000n < 0n ? 1n : 0n);
      return `${seconds}.${String(micros - seconds * 1_000_000n).padStart(6, "0")}`;
    }
    case "binary":
      return Buffer.from(plain as Uint8Array).toString("hex");
    default:
      return String(plain);
  }
}

/** A query-request answer's `data` for a result. */
export function rowsetData(result: StatementResult, kind: "query" | "dml" | "ddl" | "transaction", queryId: string) {
  if (kind !== "query") {
    return {
      queryId,
      rowtype: [{ name: "number of rows affected", type: "fixed", precision: 19, scale: 0, nullable: false }],
      rowset: [[String(result.rowsChanged)]],
      total: 1,
      returned: 1,
      queryResultFormat: "json",
      parameters: [],
    };
  }
  const types = result.columns.map((c) => rowType(c.name, c.type.toString()));
  const rowset = result.rows.map((row) => row.map((value, i) => encode(value, types[i] as RowType)));
  return {
    queryId,
    rowtype: types,
    rowset,
    total: rowset.length,
    returned: rowset.length,
    queryResultFormat: "json",
    parameters: [],
  };
}
