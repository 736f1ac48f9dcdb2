import { type ErrorCode, isSqlloadError, SqlloadError } from "@sqlload/core";

/** What a ClickHouse error means to sqlload. */
export type ClickHouseErrorKind =
  | "missing" // a database, table or column is not there
  | "exists" // a name is taken (how the staging protocol's locks and journals detect a race)
  | "data" // a value did not fit its column
  | "auth" // wrong user or password
  | "permission" // the user lacks a grant
  | "unsupported" // the server is too old or the database engine cannot do it (EXCHANGE needs Atomic)
  | "transient" // overload, timeouts, too many parts: the same work may succeed later
  | "unreachable" // no server answered
  | "locked" // a chdb folder is held by another process
  | "other";

/**
 * ClickHouse's numeric error codes (stable across versions, unlike the wording), by kind. The
 * server sends them as `Code: N. DB::Exception: …`; @clickhouse/client and chdb parse that into
 * `error.code`.
 */
const CODES: Readonly<Record<number, ClickHouseErrorKind>> = {
  16: "missing", // NO_SUCH_COLUMN_IN_TABLE
  47: "missing", // UNKNOWN_IDENTIFIER
  60: "missing", // UNKNOWN_TABLE
  81: "missing", // UNKNOWN_DATABASE
  57: "exists", // TABLE_ALREADY_EXISTS
  82: "exists", // DATABASE_ALREADY_EXISTS
  6: "data", // CANNOT_PARSE_TEXT
  27: "data", // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  53: "data", // TYPE_MISMATCH
  69: "data", // ARGUMENT_OUT_OF_BOUND
  70: "data", // CANNOT_CONVERT_TYPE
  349: "data", // CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
  407: "data", // DECIMAL_OVERFLOW
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
  159: "transient", // TIMEOUT_EXCEEDED
  202: "transient", // TOO_MANY_SIMULTANEOUS_QUERIES
  209: "transient", // SOCKET_TIMEOUT
  210: "transient", // NETWORK_ERROR
  241: "transient", // MEMORY_LIMIT_EXCEEDED
  242: "transient", // TABLE_IS_READ_ONLY (a replica lost its keeper session)
  252: "transient", // TOO_MANY_PARTS
  473: "transient", // DEADLOCK_AVOIDED
};

const NODE_UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
const NODE_TRANSIENT = new Set(["ECONNRESET", "ETIMEDOUT", "EPIPE", "UND_ERR_SOCKET"]);

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

export function clickhouseErrorKind(error: unknown): ClickHouseErrorKind {
  const code = clickhouseCode(error);
  if (code !== undefined) {
    // chdb reports a folder held by another process as CANNOT_OPEN_FILE on its `status` file.
    if (code === 76 && /Cannot lock file .*status/.test(messagesOf(error))) return "locked";
    return CODES[code] ?? "other";
  }
  const text = messagesOf(error);
  if (/Cannot lock file .*status|Another server instance in same directory/.test(text)) return "locked";
  const errno = (error as { code?: unknown } | null)?.code ?? (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof errno === "string" && NODE_UNREACHABLE.has(errno)) return "unreachable";
  if (typeof errno === "string" && NODE_TRANSIENT.has(errno)) return "transient";
  if (/\b(ECONNREFUSED|ENOTFOUND|EHOSTUNREACH)\b/.test(text)) return "unreachable";
  if (/\b(ECONNRESET|ETIMEDOUT|socket hang up|Timeout error)\b/i.test(text)) return "transient";
  return "other";
}

/** The first line of a message, without the stack trace ClickHouse appends in some builds. */
export function clickhouseMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split("\n")[0] ?? message;
  return first.replace(/\s*\(version [\d.]+.*\)$/, "").trim();
}

const HINTS: Partial<Record<ClickHouseErrorKind, string>> = {
  auth: "Check `username` and `password` (or the credentials in `url`) of the ClickHouse target.",
  permission:
    "The ClickHouse user needs CREATE TABLE, DROP TABLE, INSERT, SELECT, ALTER DELETE and ALTER PARTITION on the target database, plus SELECT on system.tables, system.columns and system.parts.",
  unsupported:
    "sqlload needs ClickHouse 24.8 or later with an Atomic database (the default): EXCHANGE TABLES, DateTime64, lightweight DELETE and query parameters.",
  transient: "ClickHouse was busy or slow; run again.",
  unreachable: "Check that the ClickHouse server is up and `url` points at its HTTP port (8123, or 8443 for TLS).",
  locked: "chdb lets one process open a folder at a time: wait for the other run (or close the other program), then run again.",
};

/**
 * Wraps a ClickHouse error into `code` (keeping SqlloadErrors as they are): transient ones become
 * retryable, an unreachable server or a refused login SL308, a chdb folder held elsewhere SL306.
 */
export function wrapClickHouseError(error: unknown, code: ErrorCode, what: string, table?: string): SqlloadError {
  if (isSqlloadError(error)) return error;
  const kind = clickhouseErrorKind(error);
  const message = `${what}: ${clickhouseMessage(error)}`;
  const options = { cause: error, ...(table ? { table } : {}), ...(HINTS[kind] ? { hint: HINTS[kind] } : {}) };
  switch (kind) {
    case "locked":
      return new SqlloadError("SL306", message, options);
    case "unreachable":
      return new SqlloadError("SL308", message, { ...options, retryable: true });
    case "auth":
      return new SqlloadError("SL308", message, { ...options, retryable: false });
    case "transient":
      return new SqlloadError(code, message, { ...options, retryable: true });
    default:
      return new SqlloadError(code, message, options);
  }
}
