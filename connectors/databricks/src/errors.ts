import { type SqlloadError, toVendorSqlloadError, type VendorErrorKind } from "@sqlload/core";

/**
 * Databricks error classes (the `[CLASS]` that starts every warehouse error message, stable
 * across releases unlike the wording) and SQLSTATEs, by the kind core gives them a meaning.
 * The first row whose class or state matches wins; classes are matched on their prefix, so
 * `DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT` is a `DELTA_CONCURRENT_APPEND`.
 */
export const databricksErrorTable: readonly (readonly [match: string, kind: VendorErrorKind])[] = [
  ["TABLE_OR_VIEW_NOT_FOUND", "missing_table"],
  ["SCHEMA_NOT_FOUND", "missing_table"],
  ["CATALOG_NOT_FOUND", "missing_table"],
  ["DELTA_TABLE_NOT_FOUND", "missing_table"],
  ["UNRESOLVED_COLUMN", "missing_column"],
  ["DELTA_CONCURRENT_APPEND", "conflict"],
  ["DELTA_CONCURRENT_DELETE_READ", "conflict"],
  ["DELTA_CONCURRENT_DELETE_DELETE", "conflict"],
  ["DELTA_CONCURRENT_TRANSACTION", "conflict"],
  ["DELTA_METADATA_CHANGED", "conflict"],
  ["DELTA_PROTOCOL_CHANGED", "conflict"],
  ["CONCURRENT_TRANSACTION", "conflict"],
  ["CAST_INVALID_INPUT", "bad_data"],
  ["CAST_OVERFLOW", "bad_data"],
  ["NUMERIC_VALUE_OUT_OF_RANGE", "bad_data"],
  ["DELTA_NOT_NULL_CONSTRAINT_VIOLATED", "bad_data"],
  ["DELTA_REPLACE_WHERE_MISMATCH", "bad_data"],
  ["INVALID_PARAMETER_VALUE", "bad_data"],
  ["DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE", "duplicate_key"],
  ["PERMISSION_DENIED", "permission"],
  ["INSUFFICIENT_PERMISSIONS", "permission"],
  ["UNAUTHENTICATED", "auth"],
  ["INVALID_TOKEN", "auth"],
  ["TEMPORARILY_UNAVAILABLE", "connection"],
  ["WAREHOUSE_STOPPED", "connection"],
  ["REQUEST_LIMIT_EXCEEDED", "rate_limit"],
  ["RESOURCE_EXHAUSTED", "rate_limit"],
  ["QUERY_EXECUTION_TIMEOUT_EXCEEDED", "timeout"],
  ["STATEMENT_TIMEOUT", "timeout"],
  ["OPERATION_CANCELED", "canceled"],
  // SQLSTATEs, for errors without a class we know.
  ["42P01", "missing_table"],
  ["42703", "missing_column"],
  ["22018", "bad_data"],
  ["22003", "bad_data"],
  ["23502", "bad_data"],
  ["42501", "permission"],
  ["28000", "auth"],
];

/** What the warehouse's HTTP status says before any SQL ran. */
const HTTP_STATUS_KINDS: Readonly<Record<number, VendorErrorKind>> = {
  401: "auth",
  403: "auth",
  429: "rate_limit",
  502: "connection",
  503: "connection",
  504: "timeout",
};

/**
 * What the cloud storage behind a presigned URL answered the driver's upload or removal with
 * (`StagingError: HTTP error 503 Service Unavailable`). A 403 there is the storage refusing the
 * URL (expired, or a network rule), not the warehouse refusing the token.
 */
const STAGING_STATUS_KINDS: Readonly<Record<number, VendorErrorKind>> = {
  403: "permission",
  408: "timeout",
  429: "rate_limit",
  500: "connection",
  502: "connection",
  503: "connection",
  504: "timeout",
};

/** The `[CLASS]` of a Databricks message, if it has one. */
export function errorClassOf(message: string): string | undefined {
  return /^\[([A-Z0-9_.]+)\]/.exec(message.trim())?.[1];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function databricksErrorKind(error: unknown): VendorErrorKind {
  const message = messageOf(error);
  const name = (error as { name?: unknown } | null)?.name;
  // The driver's own: OAuth failures, and HTTP statuses the Thrift transport reports
  // ("Received a response with a bad HTTP status code: 401", with `statusCode`).
  if (name === "AuthenticationError" || /Invalid access token/i.test(message)) return "auth";
  // The driver's StagingError keeps Error's `name`: only its class says what it is.
  if ((error as object | null)?.constructor?.name === "StagingError")
    return STAGING_STATUS_KINDS[Number(/HTTP error (\d{3})/.exec(message)?.[1])] ?? "unknown";
  const status =
    (error as { statusCode?: unknown } | null)?.statusCode ?? Number(/bad HTTP status code: (\d{3})/.exec(message)?.[1]);
  const byStatus = HTTP_STATUS_KINDS[Number(status)];
  if (byStatus) return byStatus;
  if (name === "RetryError" && /timeout|attempts/i.test(message)) return "connection";
  const errorClass = errorClassOf(message);
  const sqlState = /SQLSTATE: (\w{5})/.exec(message)?.[1];
  for (const [match, kind] of databricksErrorTable) {
    if (errorClass && (errorClass === match || errorClass.startsWith(`${match}.`))) return kind;
    if (sqlState === match) return kind;
  }
  return "unknown";
}

/** Removes the bearer token and OAuth secret from a message, whatever the driver put in it. */
export function scrubber(secrets: readonly (string | undefined)[]): (text: string) => string {
  const known = secrets.filter((s): s is string => !!s && s.length >= 4);
  return (text) => {
    let out = text.replace(/Bearer\s+\S+/gi, "Bearer ***");
    for (const s of known) out = out.replaceAll(s, "***");
    return out;
  };
}

export function databricksError(
  error: unknown,
  action: string,
  options: { table?: string | undefined; scrub: (text: string) => string },
): SqlloadError {
  return toVendorSqlloadError(error, databricksErrorKind, {
    role: "target",
    action,
    table: options.table,
    scrub: options.scrub,
    ...(databricksErrorKind(error) === "auth"
      ? { hint: "Check the target's `token` (or `client_id`/`client_secret`) and that it may use this SQL warehouse." }
      : {}),
  });
}
