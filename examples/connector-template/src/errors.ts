import { type SqlloadError, toVendorSqlloadError, type VendorErrorKind } from "@sqlload/core";

/**
 * SQLite's messages → core's kinds. The WebAssembly driver throws `SQLite3Error` with SQLite's
 * own message (`sqlite3_errmsg`) and no result code, so the message decides; SQLite has kept
 * these words for its result codes for many years.
 */
const KINDS: readonly (readonly [RegExp, VendorErrorKind])[] = [
  // SQLITE_BUSY, SQLITE_LOCKED: another process holds the file past busy_timeout.
  [/database (table )?is locked/i, "lock"],
  // SQLITE_CANTOPEN: the file or its folder cannot be opened.
  [/unable to open database file|Could not open the database/i, "connection"],
  // SQLITE_READONLY, SQLITE_PERM
  [/attempt to write a readonly database|access permission denied/i, "permission"],
  // SQLITE_CONSTRAINT_NOTNULL, SQLITE_TOOBIG
  [/NOT NULL constraint failed|string or blob too big/i, "bad_data"],
];

export function sqliteErrorKind(error: unknown): VendorErrorKind {
  const message = error instanceof Error ? error.message : String(error);
  for (const [pattern, kind] of KINDS) if (pattern.test(message)) return kind;
  return "unknown";
}

/** A SqlloadError for anything the driver threw, with core's code for its kind; a SqlloadError passes through. */
export function wrapSqliteError(error: unknown, action: string, table: string): SqlloadError {
  return toVendorSqlloadError(error, sqliteErrorKind, { role: "target", action, table });
}
