import type { ErrorCode } from "./codes.js";
import { isSqlloadError, SqlloadError } from "./sqlload-error.js";

/**
 * The closed set of things that go wrong in a database or service, as far as sqlload acts on them
 * differently. A connector classifies its vendor's errors (SQLSTATE, ClickHouse codes, BigQuery
 * reasons) into these kinds with a table of its own; what each kind means — code, hint, whether
 * a later run may succeed — is decided here, once, for every connector.
 */
export type VendorErrorKind =
  /** Refused, reset or dropped connection, DNS failure, server shutting down: worth retrying. */
  | "connection"
  /** Wrong user, password, key or token, or an unknown database: never retried. */
  | "auth"
  /** Authenticated, but not allowed to do this. */
  | "permission"
  /** A table, schema or dataset that is not there. */
  | "missing_table"
  /** A column that is not there. */
  | "missing_column"
  /** A lock held elsewhere (lock timeout, NOWAIT). */
  | "lock"
  /** A concurrent transaction won (serialization failure, deadlock, concurrent update abort). */
  | "conflict"
  /** Rate limit or quota: the service asks us to slow down. */
  | "rate_limit"
  /** A value the engine refuses: out of range, bad encoding, NULL in NOT NULL. */
  | "bad_data"
  /** Two rows with one key where the key must be unique. */
  | "duplicate_key"
  /** The service did not answer in time. */
  | "timeout"
  /** The statement was canceled (by sqlload on Ctrl-C, or an operator). */
  | "canceled"
  | "unknown";

export const vendorErrorKinds: readonly VendorErrorKind[] = [
  "connection",
  "auth",
  "permission",
  "missing_table",
  "missing_column",
  "lock",
  "conflict",
  "rate_limit",
  "bad_data",
  "duplicate_key",
  "timeout",
  "canceled",
  "unknown",
];

export interface VendorErrorContext {
  /** Which side failed. */
  readonly role: "source" | "target";
  /** What sqlload was doing, for the message: `reading public.orders`, `committing raw.app__orders`. */
  readonly action: string;
  /** The table the error belongs to. */
  readonly table?: string | undefined;
  /** The vendor's own words for the error, already scrubbed of secrets (the message, its code). */
  readonly detail: string;
  /** A hint more precise than the kind's default (which setting to check, for this connector). */
  readonly hint?: string | undefined;
}

interface KindMeaning {
  readonly code: ErrorCode | ((role: VendorErrorContext["role"]) => ErrorCode);
  readonly retryable: boolean;
  readonly hint?: string;
}

const failed = (role: VendorErrorContext["role"]): ErrorCode => (role === "source" ? "SL304" : "SL305");

/** One row per kind: the code it raises, whether it is retryable, and the hint users read. */
export const vendorErrorMeanings: Readonly<Record<VendorErrorKind, KindMeaning>> = {
  connection: {
    code: (role) => (role === "target" ? "SL308" : "SL304"),
    retryable: true,
    hint: "Check that the server is up and reachable, then run again.",
  },
  auth: { code: "SL309", retryable: false },
  permission: { code: failed, retryable: false, hint: "Grant the connecting user the privileges named in the cause." },
  missing_table: { code: (role) => (role === "source" ? "SL206" : "SL305"), retryable: false },
  missing_column: { code: "SL209", retryable: false },
  lock: { code: "SL306", retryable: true },
  conflict: { code: failed, retryable: true, hint: "Another transaction conflicted with this one; run again." },
  rate_limit: { code: "SL310", retryable: true },
  bad_data: { code: "SL300", retryable: false },
  duplicate_key: { code: "SL301", retryable: false },
  timeout: { code: "SL311", retryable: true },
  canceled: { code: "SL307", retryable: false },
  unknown: { code: failed, retryable: false },
};

/** The SqlloadError for a classified vendor error. */
export function vendorError(kind: VendorErrorKind, cause: unknown, context: VendorErrorContext): SqlloadError {
  const meaning = vendorErrorMeanings[kind];
  const code = typeof meaning.code === "function" ? meaning.code(context.role) : meaning.code;
  const hint = context.hint ?? meaning.hint;
  return new SqlloadError(code, `${context.action}: ${context.detail}`, {
    cause,
    retryable: meaning.retryable,
    ...(hint ? { hint } : {}),
    ...(context.table ? { table: context.table } : {}),
  });
}

/** Socket-level failures Node reports before or instead of a vendor's own code. */
const NODE_CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** `connection` when Node itself reports a socket failure (also on a `cause` chain), else undefined. */
export function nodeSocketErrorKind(error: unknown): "connection" | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NODE_CONNECTION_CODES.has(code)) return "connection";
    const errors = (e as { errors?: unknown }).errors; // AggregateError from happy-eyeballs connects
    if (Array.isArray(errors) && errors.some((x) => nodeSocketErrorKind(x))) return "connection";
  }
  return undefined;
}

/**
 * Turns what a vendor call threw into a SqlloadError: SqlloadErrors pass through, anything else is
 * classified by the connector's `classify` and given the kind's meaning. `scrub` removes secrets
 * from the vendor's message (connection strings, tokens) before it is shown.
 */
export function toVendorSqlloadError(
  error: unknown,
  classify: (error: unknown) => VendorErrorKind,
  context: Omit<VendorErrorContext, "detail"> & { readonly scrub?: (text: string) => string },
): SqlloadError {
  if (isSqlloadError(error)) return error;
  const kind = nodeSocketErrorKind(error) ?? classify(error);
  const e = error as { message?: unknown; code?: unknown } | null;
  const raw = typeof e?.message === "string" && e.message ? e.message : String(error);
  const code = typeof e?.code === "string" || typeof e?.code === "number" ? ` [${e.code}]` : "";
  const detail = `${raw}${raw.includes(String(e?.code)) ? "" : code}`;
  return vendorError(kind, error, { ...context, detail: context.scrub ? context.scrub(detail) : detail });
}
