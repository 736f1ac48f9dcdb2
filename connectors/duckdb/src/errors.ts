import { type ErrorCode, isSqlloadError, SqlloadError } from "@sqlload/core";

/** What a DuckDB error means to sqlload, read from the error class DuckDB prefixes its messages with. */
export type DuckDBErrorKind = "locked" | "missing-file" | "catalog" | "conflict" | "constraint" | "other";

// DuckDB's C API gives no error codes to the Node client, only `"<Type> Error: message"`; the type
// names are stable across versions, the wording after them is not, so only the prefix decides,
// except for the file lock, which DuckDB reports as a plain IO error.
const KINDS: readonly (readonly [RegExp, DuckDBErrorKind])[] = [
  [/^IO Error: Could not set lock on file/i, "locked"],
  [/^IO Error: Cannot open database .* in read-only mode: database does not exist/i, "missing-file"],
  [/^IO Error: Cannot open file .*No such file or directory/i, "missing-file"],
  [/^Catalog Error:/, "catalog"],
  [/^TransactionContext Error:.*(conflict|Conflict)/, "conflict"],
  [/^Constraint Error:/, "constraint"],
];

export function duckdbErrorKind(error: unknown): DuckDBErrorKind {
  const message = error instanceof Error ? error.message : String(error);
  for (const [pattern, kind] of KINDS) if (pattern.test(message)) return kind;
  return "other";
}

/** The first line of a DuckDB message: the rest is a caret diagram of the SQL, noise in a one-line error. */
export function duckdbMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0] ?? message;
}

/** Wraps a DuckDB error into the code given, keeping SqlloadErrors as they are; a write conflict is retryable. */
export function wrapDuckDBError(error: unknown, code: ErrorCode, what: string, table?: string): SqlloadError {
  if (isSqlloadError(error)) return error;
  const kind = duckdbErrorKind(error);
  return new SqlloadError(code, `${what}: ${duckdbMessage(error)}`, {
    cause: error,
    ...(table ? { table } : {}),
    ...(kind === "conflict"
      ? { retryable: true, hint: "Another writer changed the same table at the same time; run again." }
      : {}),
  });
}

/** An error opening a database file: another process holding it is SL306 (retryable), anything else `code`. */
export function openError(error: unknown, path: string, code: ErrorCode): SqlloadError {
  const kind = duckdbErrorKind(error);
  if (kind === "locked") {
    return new SqlloadError("SL306", `the DuckDB file ${path} is open in another process: ${duckdbMessage(error)}`, {
      cause: error,
      hint: "DuckDB lets one process write a file at a time; wait for the other run (or close the other program), then run again.",
    });
  }
  if (kind === "missing-file") {
    return new SqlloadError(code, `the DuckDB file ${path} does not exist`, { cause: error, hint: "Check `path`." });
  }
  return wrapDuckDBError(error, code, `cannot open the DuckDB file ${path}`);
}
