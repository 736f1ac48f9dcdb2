/**
 * Every error sqlload raises, by stable code. `docs/errors.md` is generated from this registry,
 * so the title and hint written here are what users read.
 *
 * Ranges: SL1xx project configuration, SL2xx planning (needs the source's or target's metadata),
 * SL3xx running a load, SL4xx connectors and discovery, SL5xx logged state, SL9xx internal.
 */
export interface ErrorCodeInfo {
  readonly title: string;
  /** The default hint; a raise site may give a more precise one. */
  readonly hint: string;
  /** A retryable error leaves the table unchanged and may succeed on a later run as is. */
  readonly retryable?: boolean;
}

export const errorCodes = {
  SL100: { title: "No project found", hint: "Run `sqlload init` to create one, or pass `--project DIR`." },
  SL101: { title: "TOML syntax error", hint: "Fix the syntax at the line shown; see https://toml.io for the format." },
  SL102: { title: "Unknown key", hint: "Remove the key or correct its spelling." },
  SL103: { title: "Wrong type for a key", hint: "Give the value the type the key documents." },
  SL104: { title: "Invalid duration", hint: 'Write a whole number and a unit (s m h d w), combinable: "1h", "7d", "1d12h".' },
  SL105: { title: "Missing required key", hint: "Add the key." },
  SL106: {
    title: "`lookback` with `append`",
    hint: "`append` reads strictly after the maximum; use `delete_insert` or `merge` to re-read late rows.",
  },
  SL107: { title: "Invalid value", hint: "Use one of the documented values." },
  SL108: { title: "`merge` needs `primary_key`", hint: 'Add `primary_key = ["id"]` (the columns that identify a row).' },
  SL109: { title: "Environment variable not set", hint: "Set it, or give a default: `${VAR:-default}`." },
  SL110: {
    title: "Invalid table key",
    hint: "Write `schema.table`; quote parts with dots, quotes, spaces or upper case: `'public.\"Odd Name\"'`.",
  },
  SL111: {
    title: "`cursor_end` not after `cursor_start`",
    hint: "Make `cursor_end` later than `cursor_start`, or remove one of them.",
  },
  SL112: { title: "Setting needs another setting", hint: "Add the setting it depends on, or remove it." },
  SL113: {
    title: "Invalid cursor value",
    hint: "Give an integer, an RFC 3339 timestamp (2026-10-01T00:00:00Z), a date (2026-10-01) or text, matching the cursor column.",
  },
  SL114: {
    title: "No tables selected",
    hint: "Check the selection against `sqlload plan` with no arguments, which lists every table.",
  },
  SL115: {
    title: "Invalid batch size",
    hint: 'Give a duration ("7d") for a date or timestamp cursor, an integer for an integer cursor, or "none".',
  },
  SL116: {
    title: "Logged table on a target that logs after the data",
    hint: "This target commits the run log after the data, so a crash could lose a logged position: load the table elsewhere, or enable the target setting the message names.",
  },

  SL200: { title: "Cursor column not found", hint: "Check `cursor_column` against the source table's columns." },
  SL201: { title: "Unsupported cursor type", hint: "A cursor column must be an integer, date, timestamp or text column." },
  SL202: { title: "`batch_size` needs a start", hint: "Set `cursor_start`, or pass `--start-cursor` for this run." },
  SL203: { title: "Too many windows", hint: "Use a larger `batch_size`, or bound the read with `--end-cursor` or `cursor_end`." },
  SL204: {
    title: "Selected tables have different cursor kinds",
    hint: "Select tables of one cursor kind when passing `--start-cursor` or `--end-cursor`.",
  },
  SL205: {
    title: "Setting needs a date or timestamp cursor",
    hint: "Remove the setting, or use it on a date or timestamp cursor.",
  },
  SL206: {
    title: "Table not found in source",
    hint: "Check the table key against the source; `sqlload plan` lists what is configured.",
  },
  SL207: { title: '`cursor_end = "now"` on an integer cursor', hint: "Give an integer `cursor_end`, or remove it." },
  SL208: { title: "Primary key column not found", hint: "Check `primary_key` against the source table's columns." },
  SL209: { title: "Column not found", hint: "Check `columns` against the source table's columns." },
  SL210: { title: "Start not before end", hint: "Make `--start-cursor` earlier than `--end-cursor`." },
  SL211: {
    title: "Range read of a rebuilt table",
    hint: "Drop --start-cursor/--end-cursor for this table (deselect it), or load it without --reload and with another write_strategy.",
  },
  SL212: {
    title: "Write strategy not supported by the target",
    hint: "Choose a `write_strategy` the target supports (the message lists them), or load the table into another target.",
  },

  SL300: { title: "Row does not fit its column", hint: "Fix the value in the source, or declare the column's type to match." },
  SL301: {
    title: "Duplicate primary key within one read",
    hint: "Make `primary_key` unique in the source, or choose a key that is.",
  },
  SL302: {
    title: "Column type changed",
    hint: "Run with `--reload` to rebuild the table with the new type, or cast the column in the source.",
  },
  SL303: { title: "Table function failed", hint: "See the cause below; the table's committed windows are kept." },
  SL304: { title: "Source read failed", hint: "See the cause below; the table's committed windows are kept." },
  SL305: { title: "Target write failed", hint: "See the cause below; the commit in flight was rolled back." },
  SL306: { title: "Table is locked by another run", hint: "Wait for the other run to finish, then run again.", retryable: true },
  SL307: { title: "Interrupted", hint: "The window in flight was rolled back; run again to carry on." },
  SL308: {
    title: "Target connection refused",
    hint: "Check that the target is up and reachable, then run again.",
    retryable: true,
  },
  SL309: {
    title: "Authentication failed",
    hint: "Check the user, password, key or token of the connection; sqlload does not retry a refused login.",
  },
  SL310: {
    title: "Rate limit or quota exceeded",
    hint: "The service asked sqlload to slow down; run again later, or raise the quota.",
    retryable: true,
  },
  SL311: {
    title: "Timed out",
    hint: "The service did not answer in time; run again, or raise the connection's timeout.",
    retryable: true,
  },

  SL400: { title: "Connector not installed", hint: "Install it beside sqlload, e.g. `npm i -D @sqlload/connector-NAME`." },
  SL401: { title: "Connector cannot be a source", hint: "Use a connector that reads, or make this the target." },
  SL402: { title: "Connector cannot be a target", hint: "Use a connector that writes, or make this a source." },
  SL403: {
    title: "Connector failed to load",
    hint: "Reinstall the package, or check that it was built for this version of sqlload.",
  },
  SL404: { title: "Connector built for another core API", hint: "Upgrade the connector or sqlload so they agree." },
  SL405: {
    title: "TypeScript module failed to load",
    hint: "Fix the error in the module named; `sqlload check` loads it without moving data.",
  },
  SL406: {
    title: "Connector's capabilities and methods disagree",
    hint: "The connector is broken: report it to its authors (the message names the package); its conformance suite shows the mismatch too.",
  },

  SL500: {
    title: "Run log record unreadable",
    hint: "Run `sqlload logged-state show TABLE`, then `sqlload logged-state reset TABLE --clear --yes` (or `--to VALUE`) to start after it.",
  },
  SL501: { title: "Checkpoint outside a logged table", hint: 'Set `state: "logged"` on the table to use checkpoints.' },
  SL502: {
    title: "State is not JSON",
    hint: "Checkpoint and state values must be JSON: objects, arrays, strings, numbers, booleans or null.",
  },

  SL900: { title: "Internal error", hint: "This is a bug in sqlload; please report it with the command you ran." },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof errorCodes;
