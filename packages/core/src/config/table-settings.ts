import type { ConfigKeySpec } from "../connector/connector.js";
import type { WriteStrategy } from "../connector/target.js";
import { compareCodePoints } from "../cursor/compare.js";
import { parseDateDays, parseTimestampMicros } from "../cursor/cursor-value.js";
import { type ErrorLocation, SqlloadError } from "../errors/sqlload-error.js";
import { type Duration, parseDuration } from "./duration.js";
import { parseRateLimit, type RateLimit } from "./rate-limit.js";
import { camelCase, type SettingSpec, snakeCase, tableSettingSpecs } from "./schema.js";
import { didYouMean } from "./suggest.js";

/** A table's validated settings (SPEC §3), in camelCase. Cursor values stay text until the cursor kind is known. */
export interface TableSettings {
  readonly description?: string | undefined;
  readonly writeStrategy?: WriteStrategy | undefined;
  readonly primaryKey?: readonly string[] | undefined;
  readonly cursorColumn?: string | undefined;
  readonly cursorStart?: string | undefined;
  readonly cursorEnd?: string | undefined;
  readonly lookback?: Duration | undefined;
  readonly lookbackFrom?: "destination" | "now" | undefined;
  readonly lookahead?: Duration | undefined;
  readonly appendCursorInclusive?: boolean | undefined;
  readonly batchSize?: Duration | bigint | "none" | undefined;
  readonly maxWindowsPerRun?: number | undefined;
  readonly columns?: readonly string[] | undefined;
  readonly rateLimit?: RateLimit | undefined;
  readonly onSchemaChange?: "evolve" | "fail" | undefined;
}

/** The window size of a table with `batch_size`; undefined without one or with `"none"`. */
export function windowSize(settings: TableSettings): Duration | bigint | undefined {
  return settings.batchSize === "none" ? undefined : settings.batchSize;
}

/** Where each setting was written, for errors raised later (at plan time). */
export type SettingLocator = (key: string) => ErrorLocation;

export interface ValidatedSettings {
  readonly settings: TableSettings;
  /** Connector-specific table keys, validated against the connector's schema. */
  readonly options: Record<string, unknown>;
}

/**
 * Validates one table's settings. `naming` says how keys are spelled: snake_case in
 * `sqlload.toml`, camelCase in a TypeScript table's options. Every problem is a SqlloadError
 * with a code, the place, and a hint.
 */
export function validateTableSettings(
  raw: Readonly<Record<string, unknown>>,
  options: { naming: "snake" | "camel"; connectorKeys?: readonly ConfigKeySpec[]; where: SettingLocator; table: string },
): ValidatedSettings {
  const name = (key: string) => (options.naming === "camel" ? camelCase(key) : key);
  const specs = new Map(tableSettingSpecs.map((s) => [name(s.key), s]));
  const connectorSpecs = new Map((options.connectorKeys ?? []).map((s) => [name(s.key), s]));
  const settings: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const spec = specs.get(key);
    const location = options.where(key);
    if (spec) {
      settings[camelCase(options.naming === "camel" ? snakeCase(key) : key)] = checkSetting(
        spec,
        value,
        key,
        location,
        options.naming,
      );
      continue;
    }
    const connectorSpec = connectorSpecs.get(key);
    if (connectorSpec) {
      extra[connectorSpec.key] = checkConnectorKey(connectorSpec, value, key, location);
      continue;
    }
    throw new SqlloadError("SL102", `unknown table setting \`${key}\` on table ${options.table}`, {
      location,
      hint: didYouMean(key, [...specs.keys(), ...connectorSpecs.keys()]),
    });
  }
  const result = settings as TableSettings;
  checkCombinations(result, name, options.where, options.table);
  return { settings: result, options: extra };
}

function wrongType(key: string, expected: string, value: unknown, location: ErrorLocation): never {
  throw new SqlloadError("SL103", `\`${key}\` must be ${expected}, not ${describeValue(value)}`, { location });
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (typeof value === "bigint") return `the integer ${value}`;
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

function checkSetting(
  spec: SettingSpec,
  value: unknown,
  key: string,
  location: ErrorLocation,
  naming: "snake" | "camel" = "snake",
): unknown {
  switch (spec.type) {
    case "rate":
      return parseRateLimit(value, key, location, naming);
    case "string": {
      if (typeof value !== "string") wrongType(key, "a string", value, location);
      if (spec.values && !spec.values.includes(value)) {
        throw new SqlloadError(
          "SL107",
          `\`${key}\` is ${JSON.stringify(value)}; it must be one of ${spec.values.map((v) => `"${v}"`).join(", ")}`,
          {
            location,
            hint: didYouMean(value, spec.values).replace("known keys", "values"),
          },
        );
      }
      return value;
    }
    case "boolean":
      return typeof value === "boolean" ? value : wrongType(key, "true or false", value, location);
    case "string[]": {
      if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === "string")) {
        wrongType(key, 'a non-empty list of strings (["id"])', value, location);
      }
      return value;
    }
    case "integer": {
      const n = typeof value === "bigint" ? Number(value) : value;
      if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) wrongType(key, "a positive integer", value, location);
      return n;
    }
    case "duration": {
      if (typeof value !== "string") wrongType(key, 'a duration string such as "1h"', value, location);
      const duration = parseDuration(value);
      if (!duration) throw new SqlloadError("SL104", `\`${key}\` = ${JSON.stringify(value)} is not a duration`, { location });
      return duration;
    }
    case "cursor": {
      if (typeof value === "bigint" || (typeof value === "number" && Number.isSafeInteger(value))) return String(value);
      if (value instanceof Date) return value.toISOString();
      if (value && typeof value === "object" && "toISOString" in value) return (value as { toISOString(): string }).toISOString();
      if (typeof value !== "string" || value === "")
        wrongType(key, "a cursor value (integer, date, timestamp or text)", value, location);
      return value;
    }
    case "batch": {
      if (value === "none") return "none";
      if (typeof value === "bigint" || typeof value === "number") {
        if (typeof value === "number" && !Number.isSafeInteger(value)) {
          throw new SqlloadError("SL115", `\`${key}\` = ${value} must be a whole number`, { location });
        }
        const n = BigInt(value);
        if (n < 1n) throw new SqlloadError("SL115", `\`${key}\` = ${value} must be a positive integer`, { location });
        return n;
      }
      if (typeof value === "string") {
        if (/^\d+$/.test(value)) return BigInt(value);
        const duration = parseDuration(value);
        if (duration) return duration;
      }
      throw new SqlloadError("SL115", `\`${key}\` = ${JSON.stringify(value)} is not a batch size`, { location });
    }
  }
}

/** Checks a value against a connector's key spec (shared by source, target and table keys). */
export function checkConnectorKey(spec: ConfigKeySpec, value: unknown, key: string, location: ErrorLocation): unknown {
  switch (spec.type) {
    case "string":
      if (typeof value !== "string") wrongType(key, "a string", value, location);
      if (spec.values && !spec.values.includes(value)) {
        throw new SqlloadError(
          "SL107",
          `\`${key}\` is ${JSON.stringify(value)}; it must be one of ${spec.values.map((v) => `"${v}"`).join(", ")}`,
          { location },
        );
      }
      return value;
    case "integer":
      // A connector key is a JS number: one beyond 2^53 would change value silently.
      if (typeof value === "bigint") return wrongType(key, "an integer below 2^53", value, location);
      return typeof value === "number" && Number.isInteger(value) ? value : wrongType(key, "an integer", value, location);
    case "number":
      if (typeof value === "bigint") return wrongType(key, "a number below 2^53", value, location);
      return typeof value === "number" ? value : wrongType(key, "a number", value, location);
    case "boolean":
      return typeof value === "boolean" ? value : wrongType(key, "true or false", value, location);
    case "string[]":
      return Array.isArray(value) && value.every((v) => typeof v === "string")
        ? value
        : wrongType(key, "a list of strings", value, location);
    case "table":
      return value && typeof value === "object" && !Array.isArray(value) ? value : wrongType(key, "a table", value, location);
  }
}

/** A rough kind of a cursor text, to compare `cursor_start` with `cursor_end` before the column's kind is known. */
function roughOrder(text: string): bigint | undefined {
  if (/^-?\d+$/.test(text)) return BigInt(text);
  const days = parseDateDays(text);
  if (days !== undefined) return BigInt(days) * 86_400_000_000n;
  return parseTimestampMicros(text);
}

/** Checks combinations of settings, e.g. after merging a TypeScript table's options below the file's. */
export function checkCombinations(s: TableSettings, name: (key: string) => string, where: SettingLocator, table: string): void {
  const needs = (key: string, other: string, why: string) => {
    throw new SqlloadError("SL112", `\`${name(key)}\` on table ${table} needs \`${name(other)}\`${why}`, {
      location: where(name(key)),
    });
  };
  const strategy = s.writeStrategy ?? (s.cursorColumn ? "delete_insert" : "replace");
  if (s.lookback && strategy === "append") {
    throw new SqlloadError("SL106", `table ${table} sets \`${name("lookback")}\` with \`${name("write_strategy")}\` = "append"`, {
      location: where(name("lookback")),
    });
  }
  if (strategy === "merge" && !s.primaryKey) {
    throw new SqlloadError(
      "SL108",
      `table ${table} uses \`${name("write_strategy")}\` = "merge" without \`${name("primary_key")}\``,
      {
        location: where(name("write_strategy")),
      },
    );
  }
  if (!s.cursorColumn) {
    for (const key of [
      "cursor_start",
      "cursor_end",
      "lookback",
      "lookahead",
      "batch_size",
      "max_windows_per_run",
      "lookback_from",
    ]) {
      if ((s as Record<string, unknown>)[camelCase(key)] !== undefined) needs(key, "cursor_column", "");
    }
  }
  if (s.lookbackFrom === "now" && !s.lookback)
    needs("lookback_from", "lookback", ' (lookback_from = "now" reads back from now by `lookback`)');
  if (s.maxWindowsPerRun !== undefined && windowSize(s) === undefined) {
    needs("max_windows_per_run", "batch_size", " (it bounds the windows `batch_size` lays)");
  }
  if (s.appendCursorInclusive && strategy !== "append") needs("append_cursor_inclusive", "write_strategy", ' = "append"');
  if (s.cursorStart !== undefined && s.cursorEnd !== undefined && s.cursorEnd !== "now") {
    const [a, b] = [roughOrder(s.cursorStart), roughOrder(s.cursorEnd)];
    if (
      (a !== undefined && b !== undefined && b <= a) ||
      (a === undefined && b === undefined && compareCodePoints(s.cursorEnd, s.cursorStart) <= 0)
    ) {
      throw new SqlloadError(
        "SL111",
        `table ${table}: \`${name("cursor_end")}\` ${s.cursorEnd} is not after \`${name("cursor_start")}\` ${s.cursorStart}`,
        {
          location: where(name("cursor_end")),
        },
      );
    }
  }
}
