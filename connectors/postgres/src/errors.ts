import { type ErrorCode, isSqlloadError, SqlloadError } from "@sqlload/core";
import { redactSecrets } from "./postgres-connection.js";

/** What went wrong, in the few kinds sqlload acts on differently. */
export type PgErrorKind =
  | "connection"
  | "login"
  | "lock"
  | "serialization"
  | "undefined_table"
  | "undefined_column"
  | "data"
  | "duplicate_key"
  | "permission"
  | "canceled"
  | "other";

/**
 * SQLSTATE codes and classes (a two-character prefix), first match wins. Exact codes come
 * before their class so `57014` (canceled) is not taken for the rest of class 57.
 */
const SQLSTATE_KINDS: readonly (readonly [string, PgErrorKind])[] = [
  ["08", "connection"], // connection_exception and its subclasses
  ["53300", "connection"], // too_many_connections
  ["57P01", "connection"], // admin_shutdown
  ["57P02", "connection"], // crash_shutdown
  ["57P03", "connection"], // cannot_connect_now (starting up, recovering)
  ["28", "login"], // invalid_authorization_specification, invalid_password
  ["3D000", "login"], // invalid_catalog_name: the database does not exist
  ["55P03", "lock"], // lock_not_available (lock_timeout, NOWAIT)
  ["40P01", "serialization"], // deadlock_detected
  ["40001", "serialization"], // serialization_failure
  ["42P01", "undefined_table"],
  ["3F000", "undefined_table"], // invalid_schema_name
  ["42703", "undefined_column"],
  ["23505", "duplicate_key"], // unique_violation
  ["21000", "duplicate_key"], // cardinality_violation: ON CONFLICT touching one row twice
  ["22", "data"], // data_exception: out of range, bad encoding, value too long…
  ["23502", "data"], // not_null_violation
  ["42501", "permission"], // insufficient_privilege
  ["57014", "canceled"], // query_canceled (statement_timeout, pg_cancel_backend)
];

/** Socket-level failures reported by Node, before or instead of a SQLSTATE. */
const NODE_CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);

export function errorKind(error: unknown): PgErrorKind {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : undefined;
  if (code && NODE_CONNECTION_CODES.has(code)) return "connection";
  if (code && /^[0-9A-Z]{5}$/.test(code)) {
    for (const [prefix, kind] of SQLSTATE_KINDS) if (code.startsWith(prefix)) return kind;
    return "other";
  }
  const message = typeof e?.message === "string" ? e.message : "";
  if (/Connection terminated|connection timeout|Client has encountered a connection error/i.test(message)) return "connection";
  return "other";
}

export interface ErrorContext {
  /** Which side failed: connection trouble on a target is SL308, on a source a retryable SL304. */
  readonly role: "source" | "target";
  /** What sqlload was doing: `reading public.orders`, `committing raw.app__orders`. */
  readonly action: string;
  /** The table the error belongs to, for the error's `table`. */
  readonly table?: string | undefined;
}

interface Mapped {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly hint?: string;
}

function mapKind(kind: PgErrorKind, role: ErrorContext["role"]): Mapped {
  const failed: ErrorCode = role === "source" ? "SL304" : "SL305";
  switch (kind) {
    case "connection":
      return role === "target"
        ? { code: "SL308", retryable: true }
        : { code: "SL304", retryable: true, hint: "Check that the source is up and reachable, then run again." };
    case "login":
      return {
        code: failed,
        retryable: false,
        hint: "Check the database, user and password of the connection (`url`, its keys, or the `PG*` variables).",
      };
    case "lock":
      return { code: "SL306", retryable: true };
    case "serialization":
      return { code: failed, retryable: true, hint: "Another transaction conflicted with this one; run again." };
    case "undefined_table":
      return role === "source" ? { code: "SL206", retryable: false } : { code: failed, retryable: false };
    case "undefined_column":
      return { code: "SL209", retryable: false };
    case "data":
      return { code: "SL300", retryable: false };
    case "duplicate_key":
      return { code: "SL301", retryable: false };
    case "permission":
      return { code: failed, retryable: false, hint: "Grant the connecting role the privileges named in the cause." };
    case "canceled":
      return { code: "SL307", retryable: false };
    case "other":
      return { code: failed, retryable: false };
  }
}

/**
 * Turns anything a Postgres call threw into a SqlloadError of the right code. SqlloadErrors
 * pass through; messages are scrubbed of connection strings so no password is printed.
 */
export function toSqlloadError(error: unknown, context: ErrorContext): SqlloadError {
  if (isSqlloadError(error)) return error;
  const kind = errorKind(error);
  const mapped = mapKind(kind, context.role);
  const e = error as { message?: unknown; code?: unknown; detail?: unknown } | null;
  const raw = typeof e?.message === "string" && e.message ? e.message : String(error);
  const code = typeof e?.code === "string" ? ` [${e.code}]` : "";
  const detail = typeof e?.detail === "string" ? ` (${e.detail})` : "";
  return new SqlloadError(mapped.code, redactSecrets(`${context.action}: ${raw}${code}${detail}`), {
    cause: error,
    retryable: mapped.retryable,
    ...(mapped.hint ? { hint: mapped.hint } : {}),
    ...(context.table ? { table: context.table } : {}),
  });
}
