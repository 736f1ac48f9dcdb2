/**
 * Every error sqlload raises, by stable code. `docs/errors.md` is generated from this registry,
 * so the title and hint written here are what users read.
 *
 * Ranges group the docs: SL1xx project configuration, SL2xx planning (needs the source's or
 * target's metadata), SL3xx running a load, SL4xx connectors and discovery, SL5xx logged state,
 * SL6xx scale-out (queues and workers), SL9xx internal. What an error means for the exit code is
 * its `category`, never its number.
 */

/**
 * What kind of failure a code is, which decides the exit code (SPEC §8): `config` and `usage`
 * are found before data moves (exit 2); `table` fails one table (exit 1); `retry` leaves the
 * table unchanged and may pass on a later run (exit 75); `interrupt` is Ctrl-C (exit 130);
 * `internal` is a bug (exit 1).
 */
export type ErrorCategory = "config" | "usage" | "table" | "retry" | "interrupt" | "internal";

export interface ErrorCodeInfo {
  readonly title: string;
  /** The default hint; a raise site may give a more precise one. */
  readonly hint: string;
  /** A retryable error leaves the table unchanged and may succeed on a later run as is. */
  readonly retryable?: boolean;
  readonly category: ErrorCategory;
}

export const errorCodes = {
  SL100: { title: "No project found", hint: "Run `sqlload init` to create one, or pass `--project DIR`.", category: "config" },
  SL101: {
    title: "TOML syntax error",
    hint: "Fix the syntax at the line shown; see https://toml.io for the format.",
    category: "config",
  },
  SL102: { title: "Unknown key", hint: "Remove the key or correct its spelling.", category: "config" },
  SL103: { title: "Wrong type for a key", hint: "Give the value the type the key documents.", category: "config" },
  SL104: {
    title: "Invalid duration",
    hint: 'Write a whole number and a unit (s m h d w), combinable: "1h", "7d", "1d12h".',
    category: "config",
  },
  SL105: { title: "Missing required key", hint: "Add the key.", category: "config" },
  SL106: {
    title: "`lookback` with `append`",
    hint: "`append` reads strictly after the maximum; use `delete_insert` or `merge` to re-read late rows.",
    category: "config",
  },
  SL107: { title: "Invalid value", hint: "Use one of the documented values.", category: "config" },
  SL108: {
    title: "`merge` needs `primary_key`",
    hint: 'Add `primary_key = ["id"]` (the columns that identify a row).',
    category: "config",
  },
  SL109: { title: "Environment variable not set", hint: "Set it, or give a default: `${VAR:-default}`.", category: "config" },
  SL110: {
    title: "Invalid table key",
    hint: "Write `schema.table`; quote parts with dots, quotes, spaces or upper case: `'public.\"Odd Name\"'`.",
    category: "config",
  },
  SL111: {
    title: "`cursor_end` not after `cursor_start`",
    hint: "Make `cursor_end` later than `cursor_start`, or remove one of them.",
    category: "config",
  },
  SL112: { title: "Setting needs another setting", hint: "Add the setting it depends on, or remove it.", category: "config" },
  SL113: {
    title: "Invalid cursor value",
    hint: "Give an integer, an RFC 3339 timestamp (2026-10-01T00:00:00Z), a date (2026-10-01) or text, matching the cursor column.",
    category: "config",
  },
  SL114: {
    title: "No tables selected",
    hint: "Check the selection against `sqlload plan` with no arguments, which lists every table.",
    category: "config",
  },
  SL115: {
    title: "Invalid batch size",
    hint: 'Give a duration ("7d") for a date or timestamp cursor, an integer for an integer cursor, or "none".',
    category: "config",
  },
  SL116: {
    title: "Logged table on a target that logs after the data",
    hint: "This target commits the run log after the data, so a crash could lose a logged position: load the table elsewhere, or enable the target setting the message names.",
    category: "config",
  },

  SL200: {
    title: "Cursor column not found",
    hint: "Check `cursor_column` against the source table's columns.",
    category: "usage",
  },
  SL201: {
    title: "Unsupported cursor type",
    hint: "A cursor column must be an integer, date, timestamp or text column.",
    category: "usage",
  },
  SL202: {
    title: "`batch_size` needs a start",
    hint: "Set `cursor_start`, or pass `--start-cursor` for this run.",
    category: "usage",
  },
  SL203: {
    title: "Too many windows",
    hint: "Use a larger `batch_size`, or bound the read with `--end-cursor` or `cursor_end`.",
    category: "usage",
  },
  SL204: {
    title: "Selected tables have different cursor kinds",
    hint: "Select tables of one cursor kind when passing `--start-cursor` or `--end-cursor`.",
    category: "usage",
  },
  SL205: {
    title: "Setting needs a date or timestamp cursor",
    hint: "Remove the setting, or use it on a date or timestamp cursor.",
    category: "usage",
  },
  SL206: {
    title: "Table not found in source",
    hint: "Check the table key against the source; `sqlload plan` lists what is configured.",
    category: "usage",
  },
  SL207: {
    title: '`cursor_end = "now"` on an integer cursor',
    hint: "Give an integer `cursor_end`, or remove it.",
    category: "usage",
  },
  SL208: {
    title: "Primary key column not found",
    hint: "Check `primary_key` against the source table's columns.",
    category: "usage",
  },
  SL209: { title: "Column not found", hint: "Check `columns` against the source table's columns.", category: "usage" },
  SL210: { title: "Start not before end", hint: "Make `--start-cursor` earlier than `--end-cursor`.", category: "usage" },
  SL211: {
    title: "Range read of a rebuilt table",
    hint: "Drop --start-cursor/--end-cursor for this table (deselect it), or load it without --reload and with another write_strategy.",
    category: "usage",
  },
  SL212: {
    title: "Write strategy not supported by the target",
    hint: "Choose a `write_strategy` the target supports (the message lists them), or load the table into another target.",
    category: "usage",
  },
  SL213: {
    title: "A reload of the table is already in progress",
    hint: "Run `sqlload load TABLE` to continue it (or `--until-caught-up` to drive it to the swap), or `sqlload load TABLE --reload --restart` to drop its build and start over.",
    category: "usage",
  },

  SL300: {
    title: "Row does not fit its column",
    hint: "Fix the value in the source, or declare the column's type to match.",
    category: "table",
  },
  SL301: {
    title: "Duplicate primary key within one read",
    hint: "Make `primary_key` unique in the source, or choose a key that is.",
    category: "table",
  },
  SL302: {
    title: "Column type changed",
    hint: "Run with `--reload` to rebuild the table with the new type, or cast the column in the source.",
    category: "table",
  },
  SL303: {
    title: "Table function failed",
    hint: "The cause ends the message, as the function gave it; the table's committed windows are kept.",
    category: "table",
  },
  SL304: {
    title: "Source read failed",
    hint: "The cause ends the message, in the source's own words; the table's committed windows are kept.",
    category: "table",
  },
  SL305: {
    title: "Target write failed",
    hint: "The cause ends the message, in the target's own words; the commit in flight was rolled back.",
    category: "table",
  },
  SL306: {
    title: "Table is locked by another run",
    hint: "Wait for the other run to finish, then run again.",
    retryable: true,
    category: "retry",
  },
  SL307: { title: "Interrupted", hint: "The window in flight was rolled back; run again to carry on.", category: "interrupt" },
  SL308: {
    title: "Target connection refused",
    hint: "Check that the target is up and reachable, then run again.",
    retryable: true,
    category: "retry",
  },
  SL309: {
    title: "Authentication failed",
    hint: "Check the user, password, key or token of the connection; sqlload does not retry a refused login.",
    category: "table",
  },
  SL310: {
    title: "Rate limit or quota exceeded",
    hint: "The service asked sqlload to slow down; run again later, or raise the quota.",
    retryable: true,
    category: "retry",
  },
  SL311: {
    title: "Timed out",
    hint: "The service did not answer in time; run again, or raise the connection's timeout.",
    retryable: true,
    category: "retry",
  },
  SL312: {
    title: "Source column changed type in a way that loses data",
    hint: "Rebuild the table with the new type: `sqlload load TABLE --reload`; or cast the column in the source.",
    category: "table",
  },
  SL313: {
    title: 'Source schema changed under on_schema_change = "fail"',
    hint: 'Update the contract and set on_schema_change = "evolve" for a run, or rebuild with `--reload`.',
    category: "table",
  },

  SL400: {
    title: "Connector not installed",
    hint: "Install it beside sqlload, e.g. `npm i -D @sqlload/connector-NAME`.",
    category: "config",
  },
  SL401: {
    title: "Connector cannot be a source",
    hint: "Use a connector that reads, or make this the target.",
    category: "config",
  },
  SL402: {
    title: "Connector cannot be a target",
    hint: "Use a connector that writes, or make this a source.",
    category: "config",
  },
  SL403: {
    title: "Connector failed to load",
    hint: "Reinstall the package, or check that it was built for this version of sqlload.",
    category: "config",
  },
  SL404: {
    title: "Connector built for another core API",
    hint: "Upgrade the connector or sqlload so they agree.",
    category: "config",
  },
  SL405: {
    title: "TypeScript module failed to load",
    hint: "Fix the error in the module named; `sqlload check` loads it without moving data.",
    category: "config",
  },
  SL406: {
    title: "Connector's capabilities and methods disagree",
    hint: "The connector is broken: report it to its authors (the message names the package); its conformance suite shows the mismatch too.",
    category: "config",
  },

  SL500: {
    title: "Run log record unreadable",
    hint: "Run `sqlload logged-state show TABLE`, then `sqlload logged-state reset TABLE --clear --yes` (or `--to VALUE`) to start after it.",
    category: "table",
  },
  SL501: {
    title: "Checkpoint outside a logged table",
    hint: 'Set `state: "logged"` on the table to use checkpoints.',
    category: "table",
  },
  SL502: {
    title: "State is not JSON",
    hint: "Checkpoint and state values must be JSON: objects, arrays, strings, numbers, booleans or null.",
    category: "table",
  },
  SL503: {
    title: "No such run to roll back to",
    hint: "List the table's runs with `sqlload runs TABLE` and pass the id of one that loaded data.",
    category: "usage",
  },
  SL504: {
    title: "Rollback would duplicate or cannot apply",
    hint: "Under `append` the rows would be inserted again: pass `--allow-duplicates` to accept that, or delete them first.",
    category: "usage",
  },

  SL600: {
    title: "Invalid queue URL",
    hint: "Give `--queue postgresql://user@host/db` (BullMQ's Postgres backend) or `--queue redis://host:6379`.",
    category: "usage",
  },
  SL601: {
    title: "Worker runs another version of the project",
    hint: "Deploy the same sqlload.toml and table modules to every worker (and restart them), then run again.",
    category: "table",
  },
  SL602: {
    title: "Queue unreachable",
    hint: "Check that the queue's database is up and the URL is right; jobs already queued wait there.",
    retryable: true,
    category: "retry",
  },

  SL900: {
    title: "Internal error",
    hint: "This is a bug in sqlload; please report it with the command you ran.",
    category: "internal",
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof errorCodes;

/** The category of a code (see `ErrorCategory`); `internal` for a code this core does not know (a newer connector's). */
export function errorCategory(code: ErrorCode): ErrorCategory {
  return (errorCodes as unknown as Record<string, ErrorCodeInfo | undefined>)[code]?.category ?? "internal";
}
