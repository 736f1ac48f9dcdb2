import { EmulatorError } from "../emulator-error.js";

/** A Snowflake error as the query and login endpoints answer it: code, SQLSTATE, HTTP status. */
export interface SnowflakeWireError {
  readonly code: string;
  readonly sqlState: string;
  readonly message: string;
  readonly status: number;
}

/**
 * What DuckDB or the emulator raised, in Snowflake's words: the codes its driver and sqlload's
 * error table know. An injected failure carries its Snowflake code in `reason`.
 */
export function toWireError(error: unknown): SnowflakeWireError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof EmulatorError) {
    const extra = error as EmulatorError & { status?: number; reason?: string };
    switch (error.kind) {
      case "injected":
        return { code: extra.reason ?? "000630", sqlState: "57014", message, status: extra.status ?? 200 };
      case "conflict":
        return { code: "000625", sqlState: "57014", message, status: 200 };
      case "unsupported":
        return { code: "001003", sqlState: "42000", message: `SQL compilation error: ${message}`, status: 200 };
      default:
        return { code: "000603", sqlState: "XX000", message, status: 200 };
    }
  }
  if (/already exists/i.test(message)) return { code: "002002", sqlState: "42710", message, status: 200 };
  if (/Table with name .* does not exist|Schema with name .* does not exist/i.test(message))
    return { code: "002003", sqlState: "42S02", message, status: 200 };
  if (/Referenced column .* not found|column .* does not exist/i.test(message))
    return { code: "000904", sqlState: "42000", message, status: 200 };
  if (/NOT NULL constraint/i.test(message)) return { code: "100072", sqlState: "22000", message, status: 200 };
  if (/Conversion Error|Invalid Input Error|Out of Range/i.test(message))
    return { code: "100038", sqlState: "22018", message, status: 200 };
  return { code: "000603", sqlState: "XX000", message, status: 200 };
}
