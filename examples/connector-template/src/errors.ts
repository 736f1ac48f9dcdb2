import { type ErrorCode, isSqlloadError, SqlloadError } from "@sqlload/core";

/**
 * What a SQLite result code means to sqlload. better-sqlite3 throws `SqliteError` with `code`
 * set to SQLite's extended result code name (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_NOTNULL`, …).
 */
export function sqliteErrorCode(code: string | undefined): ErrorCode {
  // Another process holds the file's write lock past busy_timeout: a later run can succeed.
  if (code?.startsWith("SQLITE_BUSY") || code?.startsWith("SQLITE_LOCKED")) return "SL306";
  // The file or its folder cannot be opened or written.
  if (code?.startsWith("SQLITE_CANTOPEN") || code?.startsWith("SQLITE_READONLY") || code?.startsWith("SQLITE_PERM"))
    return "SL308";
  return "SL305";
}

/** A SqlloadError for anything better-sqlite3 threw; a SqlloadError passes through unchanged. */
export function wrapSqliteError(error: unknown, message: string, table: string): SqlloadError {
  if (isSqlloadError(error)) return error;
  const code = (error as { code?: unknown }).code;
  const detail = error instanceof Error ? error.message : String(error);
  return new SqlloadError(sqliteErrorCode(typeof code === "string" ? code : undefined), `${message}: ${detail}`, {
    table,
    cause: error,
  });
}
