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
  // A value that does not convert to its column's type (a CSV line among them), or a CSV or JSON
  // line DuckDB cannot read as the file's columns.
  [/^Conversion Error:|^Invalid Input Error: (?:CSV Error|JSON transform error|Malformed JSON)/, "bad_data"],
];

/** A database file that is not there: DuckDB's words for it, which no kind of core's names. */
const MISSING_FILE = [
  /^IO Error: Cannot open database .* in read-only mode: database does not exist/i,
  /^IO Error: Cannot open file .*No such file or directory/i,
];

/** The kind of a DuckDB error, read from its message. */
export function duckdbErrorKind(error: unknown): VendorErrorKind {
  const message = messageOf(error);
  for (const [pattern, kind] of KINDS) if (pattern.test(message)) return kind;
  return "unknown";
}

/** The first line of a DuckDB message: the rest is a caret diagram of the SQL, noise in a one-line error. */
export function duckdbMessage(error: unknown): string {
  return firstLine(messageOf(error));
}

/** The most of a failing CSV line a message quotes. */
const QUOTED_LINE = 200;

/**
 * A DuckDB message in one line: its first, and for a CSV error the lines that say where and why
 * ("CSV Error on Line: 250002" alone names neither the file, nor the column, nor the value).
 */
export function duckdbDetail(text: string): string {
  const lines = text.split("\n");
  const first = lines[0] ?? text;
  if (!/CSV Error on Line/.test(first)) return first;
  const find = (pattern: RegExp) => lines.find((line) => pattern.test(line))?.trim();
  // A remote file's address may carry a signature in its query string; a local name may hold a `?`.
  const file = find(/^\s*file = /)
    ?.replace(/^file = /, "")
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^?]*)\?.*$/i, "$1");
  const why = find(/^Error when converting column|^Expected Number of Columns/);
  const line = find(/^Original Line: /)?.replace(/^Original Line: /, "");
  const quoted = line && line.length > QUOTED_LINE ? `${line.slice(0, QUOTED_LINE)}…` : line;
  return `${first}${file ? ` of ${file}` : ""}${why ? `: ${why}` : ""}${quoted !== undefined ? ` (the line: ${quoted})` : ""}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}

const HINTS = {
  conflict: "Another writer changed the same table at the same time; run again.",
  lock: "DuckDB lets one process write a file at a time; wait for the other run (or close the other program), then run again.",
  bad_data:
    "Fix the value in the source. DuckDB reads a CSV or JSON-lines column as the type it detects in the first 20,480 lines of a file, so a later value of another kind fails.",
} as const;

/** DuckDB's words when it runs out of its memory_limit: an allocation, or a block it could not pin. */
const OUT_OF_MEMORY = /Out of Memory Error|failed to pin block|could not allocate block|failed to allocate (?:block|data)/i;
/** A checkpoint failed after its commit was made durable: DuckDB refuses every statement after it. */
const INVALIDATED = /has been invalidated/i;

/** True when DuckDB says a COMMIT took effect even though it reports an error (its checkpoint after it failed). */
export function committedDurably(error: unknown): boolean {
  return /COMMIT succeeded and is durable/i.test(messageOf(error));
}

const RAISE = (role: Role) =>
  `Set the ${role}'s \`memory_limit\` higher (such as "4GB"), or to "-1" for DuckDB's own (80% of the memory).`;

/** A hint for DuckDB's memory failures, which no kind of core's names. */
function memoryHint(message: string): string | undefined {
  if (INVALIDATED.test(message)) {
    return `DuckDB could not checkpoint the file after a commit, and refuses further work on it in this run; what was committed is kept (in its write-ahead log), and the next run checkpoints it first. ${RAISE("target")}`;
  }
  if (OUT_OF_MEMORY.test(message)) {
    return `DuckDB ran out of the target's memory_limit. Long text or blobs, wide rows and tables of many columns need the most: DuckDB keeps 2,048 rows of text and a block of every column in memory while it writes. ${RAISE("target")}`;
  }
  return undefined;
}

/** The hint for a DuckDB source's read that ran out of its memory_limit (duckdb-read-memory.ts). */
export function sourceMemoryHint(error: unknown): string | undefined {
  return OUT_OF_MEMORY.test(messageOf(error))
    ? `DuckDB ran out of the source's memory_limit while reading. ${RAISE("source")}`
    : undefined;
}

/**
 * A DuckDB error as a SqlloadError of core's policy for its kind (SqlloadErrors pass through). A
 * target's memory failures get their hint; a source's `hint` is its caller's (a files source's
 * DuckDB has no setting of the user's).
 */
export function wrapDuckDBError(error: unknown, role: Role, action: string, table?: string, hint?: string): SqlloadError {
  const hinted = hint ?? (role === "target" ? memoryHint(messageOf(error)) : undefined);
  return toVendorSqlloadError(error, duckdbErrorKind, { role, action, table, hints: HINTS, scrub: duckdbDetail, hint: hinted });
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
