import { ttypes } from "./databricks-results.js";

/**
 * A failure as a Databricks warehouse reports it: `[ERROR_CLASS] message SQLSTATE: xxxxx` in a
 * failed `TStatus`. DuckDB's own errors are given the class Databricks raises for the same cause;
 * injected ones carry the `reason` a test chose as their class.
 */
export function databricksErrorStatus(error: unknown): Record<string, unknown> {
  const message = error instanceof Error ? error.message : String(error);
  const injected = error as { kind?: string; reason?: string };
  const text = injected.kind === "injected" ? `[${injected.reason ?? "INTERNAL_ERROR"}] ${message}` : databricksMessage(message);
  const sqlState = /SQLSTATE: (\w{5})/.exec(text)?.[1];
  return {
    statusCode: ttypes.TStatusCode.ERROR_STATUS,
    errorMessage: text,
    displayMessage: text,
    ...(sqlState ? { sqlState } : {}),
  };
}

const translations: readonly (readonly [RegExp, string, string])[] = [
  [/^\[[A-Z_.]+\]/, "", ""],
  [/Catalog Error: Table with name .* does not exist/, "TABLE_OR_VIEW_NOT_FOUND", "42P01"],
  [/Catalog Error: Schema with name .* does not exist/, "SCHEMA_NOT_FOUND", "42704"],
  [/Catalog Error: Table with name .* already exists/, "TABLE_OR_VIEW_ALREADY_EXISTS", "42P07"],
  [/Binder Error: .*(Referenced column|not found in)/, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703"],
  [/TransactionContext Error: .*[Cc]onflict/, "DELTA_CONCURRENT_APPEND", "2D521"],
  [/Conversion Error|Invalid Input Error|Out of Range Error/, "CAST_INVALID_INPUT", "22018"],
  [/Constraint Error: NOT NULL/, "DELTA_NOT_NULL_CONSTRAINT_VIOLATED", "23502"],
  [/Parser Error/, "PARSE_SYNTAX_ERROR", "42601"],
];

function databricksMessage(message: string): string {
  for (const [pattern, errorClass, sqlState] of translations) {
    if (!pattern.test(message)) continue;
    if (!errorClass) return message;
    return `[${errorClass}] ${message} SQLSTATE: ${sqlState}`;
  }
  return `[INTERNAL_ERROR] ${message} SQLSTATE: XX000`;
}
