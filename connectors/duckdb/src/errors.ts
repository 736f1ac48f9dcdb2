import { type SqlloadError, toVendorSqlloadError, type VendorErrorKind, vendorError } from "@sqlload/core";

type Role = "source" | "target";

// DuckDB's C API gives no error codes to the Node client, only `"<Type> Error: message"`; the type
// names are stable across versions, the wording after them is not, so only the prefix decides,
// except for the file lock, which DuckDB reports as a plain IO error.
const KINDS: readonly (readonly [RegExp, VendorErrorKind])[] = [
  [/^IO Error: Could not set lock on file/i, "lock"],
  [/^TransactionContext Error:.*(conflict|Conflict)/, "conflict"],
  // A relation or schema that is not there (or a function, which sqlload's statements do not name).
  [/^Catalog Error:/, "missing_table"],
];

/** A database file that is not there: DuckDB's words for it, which no kind of core's names. */
const MISSING_FILE = [
  /^IO Error: Cannot open database .* in read-only mode: database does not exist/i,
  /^IO Error: Cannot open file .*No such file or directory/i,
];

/** The kind of a DuckDB error, read from its message. */
export function duckdbErrorKind(error: unknown): VendorErrorKind {
  const message = error instanceof Error ? error.message : String(error);
  for (const [pattern, kind] of KINDS) if (pattern.test(message)) return kind;
  return "unknown";
}

/** The first line of a DuckDB message: the rest is a caret diagram of the SQL, noise in a one-line error. */
export function duckdbMessage(error: unknown): string {
  return firstLine(error instanceof Error ? error.message : String(error));
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}

const HINTS = {
  conflict: "Another writer changed the same table at the same time; run again.",
  lock: "DuckDB lets one process write a file at a time; wait for the other run (or close the other program), then run again.",
} as const;

/** A DuckDB error as a SqlloadError of core's policy for its kind (SqlloadErrors pass through). */
export function wrapDuckDBError(error: unknown, role: Role, action: string, table?: string): SqlloadError {
  return toVendorSqlloadError(error, duckdbErrorKind, { role, action, table, hints: HINTS, scrub: firstLine });
}

/** An error opening a database file: one held by another process, one that is not there, or anything else. */
export function openError(error: unknown, path: string, role: Role): SqlloadError {
  const detail = duckdbMessage(error);
  if (duckdbErrorKind(error) === "lock") {
    return vendorError("lock", error, {
      role,
      action: `the DuckDB file ${path} is open in another process`,
      detail,
      hint: HINTS.lock,
    });
  }
  if (MISSING_FILE.some((pattern) => pattern.test(detail))) {
    return vendorError("unknown", error, {
      role,
      action: `the DuckDB file ${path} does not exist`,
      detail,
      hint: "Check `path`.",
    });
  }
  return wrapDuckDBError(error, role, `cannot open the DuckDB file ${path}`);
}
