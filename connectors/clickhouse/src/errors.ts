import { type SqlloadError, toVendorSqlloadError, type VendorErrorKind } from "@sqlload/core";

/**
 * ClickHouse's numeric error codes (stable across versions, unlike the wording) → core's kinds.
 * The server sends them as `Code: N. DB::Exception: …`; @clickhouse/client and chdb parse that
 * into `error.code`.
 */
const CODES: Readonly<Record<number, VendorErrorKind>> = {
  16: "missing_column", // NO_SUCH_COLUMN_IN_TABLE
  47: "missing_column", // UNKNOWN_IDENTIFIER
  60: "missing_table", // UNKNOWN_TABLE
  81: "missing_table", // UNKNOWN_DATABASE
  6: "bad_data", // CANNOT_PARSE_TEXT
  27: "bad_data", // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  53: "bad_data", // TYPE_MISMATCH
  69: "bad_data", // ARGUMENT_OUT_OF_BOUND
  70: "bad_data", // CANNOT_CONVERT_TYPE
  349: "bad_data", // CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
  407: "bad_data", // DECIMAL_OVERFLOW
  192: "auth", // UNKNOWN_USER
  193: "auth", // WRONG_PASSWORD
  194: "auth", // REQUIRED_PASSWORD
  516: "auth", // AUTHENTICATION_FAILED
  497: "permission", // ACCESS_DENIED
  164: "permission", // READONLY
  48: "unsupported", // NOT_IMPLEMENTED (EXCHANGE TABLES outside an Atomic database)
  344: "unsupported", // SUPPORT_IS_DISABLED
  115: "unsupported", // UNKNOWN_SETTING (a server older than the settings sqlload sends)
  50: "unsupported", // UNKNOWN_TYPE (DateTime64, Time64 on an old server)
  159: "timeout", // TIMEOUT_EXCEEDED
  209: "timeout", // SOCKET_TIMEOUT
  210: "connection", // NETWORK_ERROR
  242: "connection", // TABLE_IS_READ_ONLY (a replica lost its keeper session)
  202: "rate_limit", // TOO_MANY_SIMULTANEOUS_QUERIES
  241: "rate_limit", // MEMORY_LIMIT_EXCEEDED
  252: "rate_limit", // TOO_MANY_PARTS
  473: "conflict", // DEADLOCK_AVOIDED
};

/** TABLE_ALREADY_EXISTS, DATABASE_ALREADY_EXISTS: how the staging protocol's locks and journals detect a race. */
const EXISTS_CODES = new Set([57, 82]);

/** The ClickHouse error code of an error (or of its cause), when it carries one. */
export function clickhouseCode(error: unknown): number | undefined {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== "object") break;
    const code = (e as { code?: unknown; clickhouseCode?: unknown }).clickhouseCode ?? (e as { code?: unknown }).code;
    if (typeof code === "number" && Number.isInteger(code)) return code;
    if (typeof code === "string" && /^\d+$/.test(code)) return Number(code);
    const match = /^Code: (\d+)\./.exec(e instanceof Error ? e.message : "");
    if (match) return Number(match[1]);
  }
  return undefined;
}

function messagesOf(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    parts.push(e instanceof Error ? e.message : String(e));
    if (typeof e !== "object") break;
  }
  return parts.join(" | ");
}

/** chdb reports a folder held by another process as CANNOT_OPEN_FILE (76) on its `status` file. */
const CHDB_LOCKED = /Cannot lock file .*status|Another server instance in same directory/;

/** The kind of a ClickHouse or chdb error (Node's socket codes are core's to read). */
export function clickhouseErrorKind(error: unknown): VendorErrorKind {
  const text = messagesOf(error);
  const code = clickhouseCode(error);
  if (CHDB_LOCKED.test(text) && (code === undefined || code === 76)) return "lock";
  if (code !== undefined) return CODES[code] ?? "unknown";
  // The HTTP client sometimes reports a socket failure only in its words.
  if (/\b(ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET)\b|socket hang up/i.test(text)) return "connection";
  if (/\b(ETIMEDOUT|Timeout error)\b/i.test(text)) return "timeout";
  return "unknown";
}

/** Whether a name sqlload tried to create was taken. */
export function alreadyExists(error: unknown): boolean {
  const code = clickhouseCode(error);
  return code !== undefined && EXISTS_CODES.has(code);
}

/** The first line of a message, without the stack trace ClickHouse appends in some builds. */
export function clickhouseMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split("\n")[0] ?? message;
  return first.replace(/\s*\(version [\d.]+[^)]*\)/, "").trim();
}

const HINTS: Partial<Record<VendorErrorKind, string>> = {
  auth: "Check `username` and `password` (or the credentials in `url`) of the ClickHouse target.",
  permission:
    "The ClickHouse user needs CREATE TABLE, DROP TABLE, INSERT, SELECT, ALTER DELETE and ALTER PARTITION on the target database, plus SELECT on system.tables, system.columns and system.parts.",
  unsupported:
    "sqlload needs ClickHouse 24.8 or later with an Atomic database (the default): EXCHANGE TABLES, DateTime64, lightweight DELETE and query parameters.",
  rate_limit: "ClickHouse was busy; run again.",
  timeout: "ClickHouse was slow to answer; run again.",
  connection: "Check that the ClickHouse server is up and `url` points at its HTTP port (8123, or 8443 for TLS).",
  lock: "chdb lets one process open a folder at a time: wait for the other run (or close the other program), then run again.",
};

/**
 * A ClickHouse error as a SqlloadError of core's policy for its kind (SqlloadErrors pass
 * through). While `connecting`, an error of no known kind counts as a failed connection.
 */
export function wrapClickHouseError(
  error: unknown,
  action: string,
  options: { table?: string; connecting?: boolean } = {},
): SqlloadError {
  const classify = (e: unknown) => {
    const kind = clickhouseErrorKind(e);
    return options.connecting && kind === "unknown" ? "connection" : kind;
  };
  return toVendorSqlloadError(error, classify, {
    role: "target",
    action,
    table: options.table,
    hints: HINTS,
    scrub: (text) => clickhouseMessage(text),
  });
}
