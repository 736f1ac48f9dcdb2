/**
 * The table settings of SPEC §3: one source of truth for validation, `--help`-style docs and the
 * camelCase names TypeScript tables use. Connector-specific keys come from each connector's schema.
 */
export type SettingType = "string" | "string[]" | "boolean" | "integer" | "duration" | "cursor" | "batch" | "rate";

export interface SettingSpec {
  readonly key: string;
  readonly type: SettingType;
  readonly description: string;
  readonly values?: readonly string[];
}

export const writeStrategies = ["append", "delete_insert", "merge", "replace"] as const;

export const tableSettingSpecs: readonly SettingSpec[] = [
  { key: "description", type: "string", description: "Free text, shown by `plan`." },
  {
    key: "write_strategy",
    type: "string",
    values: writeStrategies,
    description:
      "`append`, `delete_insert`, `merge` (needs `primary_key`) or `replace`. Default: `delete_insert` with a cursor, `replace` without.",
  },
  { key: "primary_key", type: "string[]", description: "Columns that identify a row; needed by `merge`." },
  { key: "cursor_column", type: "string", description: "Integer, date, timestamp or text column the runs continue from." },
  { key: "cursor_start", type: "cursor", description: "Where the first run starts when the target table is empty." },
  { key: "cursor_end", type: "cursor", description: 'Where this table\'s reads stop for good: a value, or "now".' },
  {
    key: "lookback",
    type: "duration",
    description: 'Read this far before the maximum ("1h", "2d") to pick up late rows. Not with `append`.',
  },
  {
    key: "lookback_from",
    type: "string",
    values: ["destination", "now"],
    description: '`"destination"` (default): back from the target\'s maximum; `"now"`: back from the run\'s start.',
  },
  { key: "lookahead", type: "duration", description: "Read only cursor values before now plus this." },
  {
    key: "append_cursor_inclusive",
    type: "boolean",
    description: "`append` reads from the maximum itself (inserting its rows again) instead of strictly after it.",
  },
  {
    key: "batch_size",
    type: "batch",
    description: 'Commit one window at a time: "7d" (date/timestamp), an integer (integer cursor), or "none".',
  },
  { key: "max_windows_per_run", type: "integer", description: "With `batch_size`: commit at most this many windows per run." },
  { key: "columns", type: "string[]", description: "Columns to read; default all." },
  {
    key: "on_schema_change",
    type: "string",
    values: ["evolve", "fail"],
    description:
      '`"evolve"` (default): apply source changes that lose nothing (new columns, widened types) before loading; `"fail"`: refuse any change (a contract).',
  },
  {
    key: "rate_limit",
    type: "rate",
    description:
      "Pace reads within a run: `{ rows_per_second = 1000, requests_per_second = 2 }` (requests: TypeScript tables that `await ctx.pace()`). Overrides the source's `rate_limit`.",
  },
];

/** Keys every source and the target accept, whatever the connector: how core opens their connections. */
export const connectionSettingSpecs: readonly SettingSpec[] = [
  {
    key: "connect_retries",
    type: "integer",
    description:
      "Attempts after the first when opening a connection is refused, reset or times out (default 4; 0: try once). An authentication failure is never retried.",
  },
  {
    key: "connect_timeout",
    type: "duration",
    description:
      'How long to keep trying to open a connection, from the first attempt (default "10s"), with exponential backoff and jitter.',
  },
];

/** `cursor_column` → `cursorColumn`: the names TypeScript table options use. */
export function camelCase(key: string): string {
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** `cursorColumn` → `cursor_column`. */
export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
