import { type SqlloadError, toVendorSqlloadError, type VendorErrorContext, type VendorErrorKind } from "@sqlload/core";
import { redactSecrets } from "./postgres-connection.js";

/**
 * SQLSTATE codes and classes (a two-character prefix) → core's kinds, first match wins. Exact
 * codes come before their class so `57014` (canceled) is not taken for the rest of class 57.
 */
const SQLSTATE_KINDS: readonly (readonly [string, VendorErrorKind])[] = [
  ["08", "connection"], // connection_exception and its subclasses
  ["53300", "connection"], // too_many_connections
  ["57P01", "connection"], // admin_shutdown
  ["57P02", "connection"], // crash_shutdown
  ["57P03", "connection"], // cannot_connect_now (starting up, recovering)
  ["28", "auth"], // invalid_authorization_specification, invalid_password
  ["3D000", "auth"], // invalid_catalog_name: the database does not exist
  ["55P03", "lock"], // lock_not_available (lock_timeout, NOWAIT)
  ["40P01", "conflict"], // deadlock_detected
  ["40001", "conflict"], // serialization_failure
  ["42P01", "missing_table"],
  ["3F000", "missing_table"], // invalid_schema_name
  ["42703", "missing_column"],
  ["23505", "duplicate_key"], // unique_violation
  ["21000", "duplicate_key"], // cardinality_violation: ON CONFLICT touching one row twice
  ["22", "bad_data"], // data_exception: out of range, bad encoding, value too long…
  ["23502", "bad_data"], // not_null_violation
  ["42501", "permission"], // insufficient_privilege
  ["57014", "canceled"], // query_canceled (statement_timeout, pg_cancel_backend)
];

/** node-postgres' own words for a connection it lost, which carry no code. */
const LOST_CONNECTION = /Connection terminated|connection timeout|Client has encountered a connection error/i;

/** The kind of what node-postgres threw (Node's socket codes are core's to read). */
export function errorKind(error: unknown): VendorErrorKind {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : undefined;
  if (code && /^[0-9A-Z]{5}$/.test(code)) {
    for (const [prefix, kind] of SQLSTATE_KINDS) if (code.startsWith(prefix)) return kind;
    return "unknown";
  }
  const message = typeof e?.message === "string" ? e.message : "";
  return LOST_CONNECTION.test(message) ? "connection" : "unknown";
}

export type ErrorContext = Omit<VendorErrorContext, "detail">;

const HINTS = {
  auth: "Check the database, user and password of the connection (`url`, its keys, or the `PG*` variables).",
  permission: "Grant the connecting role the privileges named in the cause.",
} as const;

/** Anything a Postgres call threw as a SqlloadError; connection strings are scrubbed from the message. */
export function toSqlloadError(error: unknown, context: ErrorContext): SqlloadError {
  return toVendorSqlloadError(error, errorKind, { ...context, scrub: redactSecrets, hints: HINTS });
}
