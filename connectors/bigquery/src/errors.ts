import { nodeSocketErrorKind, type SqlloadError, toVendorSqlloadError, type VendorErrorKind } from "@sqlload/core";

/**
 * BigQuery's error `reason`s (https://cloud.google.com/bigquery/docs/error-messages), by kind.
 * The reason is stable; the message is not, except for the concurrent-transaction abort, which
 * BigQuery reports with the generic reason `invalidQuery` or `invalid` and a fixed sentence.
 */
const REASONS: Readonly<Record<string, VendorErrorKind>> = {
  rateLimitExceeded: "rate_limit",
  quotaExceeded: "rate_limit",
  backendError: "connection",
  internalError: "connection",
  badGateway: "connection",
  responseTooLarge: "unknown",
  timeout: "timeout",
  jobBackendError: "connection",
  jobInternalError: "connection",
  authError: "auth",
  unauthorized: "auth",
  accessDenied: "permission",
  billingNotEnabled: "permission",
  billingTierLimitExceeded: "permission",
  notFound: "missing_table",
  duplicate: "unknown",
  stopped: "canceled",
  invalid: "bad_data",
  invalidQuery: "unknown",
  resourceInUse: "conflict",
  resourcesExceeded: "unknown",
};

/** The messages of a transaction BigQuery aborted because another one changed the same table. */
const CONFLICT = /concurrent update|could not serialize access|Transaction is aborted/i;

/**
 * Failures of the credentials themselves, raised by the auth library before any request reaches
 * BigQuery: no Application Default Credentials, a key that cannot sign, a grant the token
 * endpoint refused.
 */
const CREDENTIALS = /Could not load the default credentials|invalid_grant|unauthorized_client|DECODER routines|PEM routines/i;

/** The reasons of an error as the client reports it: `errors[].reason` of an ApiError, or of the job's status. */
export function bigqueryReasons(error: unknown): string[] {
  const e = error as { errors?: { reason?: unknown }[]; reason?: unknown; response?: { status?: { errors?: unknown } } } | null;
  const reasons: string[] = [];
  for (const item of e?.errors ?? []) if (typeof item?.reason === "string") reasons.push(item.reason);
  if (typeof e?.reason === "string") reasons.push(e.reason);
  return reasons;
}

function messageOf(error: unknown): string {
  const e = error as { message?: unknown; errors?: { message?: unknown }[] } | null;
  const parts = [typeof e?.message === "string" ? e.message : String(error)];
  for (const item of e?.errors ?? []) if (typeof item?.message === "string") parts.push(item.message);
  return parts.join(" | ");
}

export function bigqueryErrorKind(error: unknown): VendorErrorKind {
  if (CONFLICT.test(messageOf(error))) return "conflict";
  const code = (error as { code?: unknown } | null)?.code;
  if (CREDENTIALS.test(messageOf(error)) || (typeof code === "string" && code.startsWith("ERR_OSSL"))) return "auth";
  for (const reason of bigqueryReasons(error)) {
    const kind = REASONS[reason];
    if (kind && kind !== "unknown") return kind;
  }
  const status = (error as { code?: unknown } | null)?.code;
  if (status === 401) return "auth";
  if (status === 403) return "permission";
  if (status === 404) return "missing_table";
  if (status === 429) return "rate_limit";
  if (status === 500 || status === 502 || status === 503) return "connection";
  return "unknown";
}

/**
 * Whether a failed job may be tried again: the cause passes (rate limits, backend errors, a
 * concurrent-update abort, a lost connection). A job that ran and failed was rolled back; one
 * whose answer was lost is sent again under its own id (see JobIds), so nothing runs twice.
 */
export function retryableJobError(error: unknown): boolean {
  const kind = nodeSocketErrorKind(error) ?? bigqueryErrorKind(error);
  return kind === "rate_limit" || kind === "conflict" || kind === "connection" || kind === "timeout";
}

/** Access tokens and key material never reach a message. */
export function scrubSecrets(text: string): string {
  return text
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/g, "$1[redacted]")
    .replace(/(access_token=)[^&\s]+/g, "$1[redacted]")
    .replace(/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, "[redacted key]");
}

export function toBigQueryError(error: unknown, action: string, table?: string): SqlloadError {
  const hint =
    bigqueryErrorKind(error) === "auth"
      ? "Check the BigQuery target's credentials: Application Default Credentials, or `keyfile`."
      : bigqueryReasons(error).includes("bytesBilledLimitExceeded")
        ? "The job would bill more bytes than the target's `maximum_bytes_billed`: raise it, or read less per run (windows, a range reload)."
        : undefined;
  return toVendorSqlloadError(error, bigqueryErrorKind, {
    role: "target",
    action,
    table,
    scrub: scrubSecrets,
    ...(hint ? { hint } : {}),
  });
}
