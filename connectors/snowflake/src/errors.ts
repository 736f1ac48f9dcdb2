import {
  formatTargetTable,
  type SqlloadError,
  type TargetTableRef,
  toVendorSqlloadError,
  type VendorErrorKind,
} from "@sqlload/core";

/**
 * Snowflake's error codes (the `code` of a snowflake-sdk error: a server code such as `002003`,
 * or a driver code such as 401001) by the kind sqlload acts on. Codes are compared as numbers:
 * the driver gives server codes as text and its own as numbers.
 */
export const snowflakeErrorCodes: Readonly<Record<number, VendorErrorKind>> = {
  // Driver: could not reach the server, the request or its response failed.
  401001: "connection",
  401002: "connection",
  402001: "connection",
  402002: "connection",
  // The session's authentication token expired: sign in again.
  390114: "connection",
  390112: "connection",
  // Sign-in refused: user or password, JWT (key pair), OAuth token, locked or disabled user.
  390100: "auth",
  390101: "auth",
  390102: "auth",
  390144: "auth",
  390303: "auth",
  390318: "auth",
  // The database, schema or table does not exist (or is not visible to the role).
  2003: "missing_table",
  2043: "missing_table",
  // Invalid identifier: a column that is not there.
  904: "missing_column",
  // Insufficient privileges.
  3001: "permission",
  3041: "permission",
  // A statement waited on a table lock held by another transaction.
  625: "lock",
  // A statement ran past STATEMENT_TIMEOUT_IN_SECONDS.
  630: "timeout",
  // Canceled.
  604: "canceled",
  // Values the engine refuses: numeric, date, timestamp, boolean, binary or JSON text that does not parse.
  100035: "bad_data",
  100038: "bad_data",
  100039: "bad_data",
  100040: "bad_data",
  100037: "bad_data",
  100069: "bad_data",
  100071: "bad_data",
  100096: "bad_data",
  // NULL in a NOT NULL column.
  100072: "bad_data",
  // MERGE found two source rows for one target row.
  100090: "duplicate_key",
};

/** HTTP statuses that mean the service asks us to slow down, or is briefly away. */
const HTTP_KINDS: Readonly<Record<number, VendorErrorKind>> = {
  429: "rate_limit",
  502: "connection",
  503: "connection",
  504: "timeout",
};

export function snowflakeErrorKind(error: unknown): VendorErrorKind {
  const e = error as { code?: unknown; sqlState?: unknown; response?: { status?: unknown } } | null;
  const code = Number(e?.code);
  if (Number.isFinite(code) && snowflakeErrorCodes[code]) return snowflakeErrorCodes[code];
  // The private key did not decrypt or parse (wrong passphrase, not a PEM key): signing in cannot work.
  if (typeof e?.code === "string" && e.code.startsWith("ERR_OSSL")) return "auth";
  const status = Number(e?.response?.status);
  if (HTTP_KINDS[status]) return HTTP_KINDS[status];
  const state = typeof e?.sqlState === "string" ? e.sqlState : "";
  if (state.startsWith("08")) return "connection";
  if (state.startsWith("22")) return "bad_data";
  if (state === "42S02") return "missing_table";
  if (state === "42501") return "permission";
  return "unknown";
}

/** Network trouble and expired tokens: worth a new attempt of a statement that may run twice. */
export function isRetryableSnowflakeError(error: unknown): boolean {
  const kind = snowflakeErrorKind(error);
  return kind === "connection" || kind === "rate_limit";
}

/** Whether the error says the object to create already exists (002002). */
export function isAlreadyExists(error: unknown): boolean {
  return Number((error as { code?: unknown } | null)?.code) === 2002;
}

/** Removes what could be a secret from a driver message: tokens, passwords, keys in URLs or JSON. */
export function scrub(text: string): string {
  return text
    .replace(/("?(password|token|passcode|privateKeyPass|masterToken)"?\s*[:=]\s*)"[^"]*"/gi, '$1"***"')
    .replace(/(Token=)"[^"]*"/g, '$1"***"')
    .replace(/\/\/[^/@\s]+@/g, "//***@");
}

export function wrapSnowflakeError(error: unknown, action: string, table?: string): SqlloadError {
  return toVendorSqlloadError(error, snowflakeErrorKind, { role: "target", action, table, scrub });
}

/** Runs `work`, turning what Snowflake throws into a SqlloadError about `what` on `ref`. */
export async function guardTable<T>(ref: TargetTableRef, what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const label = formatTargetTable(ref);
    throw wrapSnowflakeError(error, `${what} ${label} failed`, label);
  }
}
