/**
 * The API a project's TypeScript module imports (`import { source, checkpoint } from "sqlload"`).
 * Definitions are plain objects tagged with registry symbols (`Symbol.for`), so a module loaded
 * through another copy of this package is still recognised.
 */
import type { Json } from "@sqlload/core";

export const TABLE_TAG: unique symbol = Symbol.for("sqlload.table") as never;
export const CHECKPOINT_TAG: unique symbol = Symbol.for("sqlload.checkpoint") as never;

/** What a table function is called with. */
export interface Context<S = Json> {
  /** The position the last successful run left (`state: "logged"`); undefined on a first run or after `--reload`. */
  state: S | undefined;
  /**
   * Where this read starts, when it has a lower bound: a bigint for integer cursors, `"YYYY-MM-DD"`
   * for dates, a Date for timestamps (see `range` for microseconds), a string for text.
   */
  readonly cursorValue: bigint | string | Date | undefined;
  /** Where this read stops (exclusive), in the same form; undefined when open. */
  readonly cursorEnd: bigint | string | Date | undefined;
  /** The exact bounds: `from` (inclusive unless `fromInclusive` is false) and `to` (exclusive). */
  readonly range: {
    readonly from?: { readonly kind: string; readonly value: bigint | number | string } | undefined;
    readonly fromInclusive: boolean;
    readonly to?: { readonly kind: string; readonly value: bigint | number | string } | undefined;
  };
  /** Which window this call reads, for tables with `batchSize`. */
  readonly window: { readonly index: number; readonly count: number } | undefined;
  /** Aborted when the run is interrupted: pass it to fetch() and stop early. */
  readonly signal: AbortSignal;
  /**
   * Await before each request to a paced API: resolves when `rateLimit.requestsPerSecond` (the
   * table's, else its source's) lets the next request go. Resolves at once when no limit is set.
   */
  pace(): Promise<void>;
}

/** A row: an object keyed by column name. */
export type Row = Record<string, unknown>;

/** What a table function yields: rows, arrays of rows (faster), and checkpoints. */
export type TableYield = Row | readonly Row[] | Checkpoint;

export type TableFunction<S = Json> = (ctx: Context<S>) => AsyncIterable<TableYield> | Iterable<TableYield>;

/** Table options: every table setting of sqlload.toml in camelCase, plus declarations only code can make. */
export interface TableOptions {
  /** The table's name; default: the function's name. */
  readonly name?: string;
  /** Column types (`bigint`, `text`, `timestamp`, `decimal(12,2)`, `bigint not null`, …); default: inferred from the rows. */
  readonly columns?: Readonly<Record<string, string>>;
  /** `"logged"`: keep a position in the run log (`ctx.state`, `checkpoint`). */
  readonly state?: "logged";
  readonly description?: string;
  readonly writeStrategy?: "append" | "delete_insert" | "merge" | "replace";
  readonly primaryKey?: readonly string[];
  readonly cursorColumn?: string;
  readonly cursorStart?: string | number | bigint;
  readonly cursorEnd?: string | number | bigint;
  readonly lookback?: string;
  readonly lookbackFrom?: "destination" | "now";
  readonly lookahead?: string;
  readonly appendCursorInclusive?: boolean;
  readonly batchSize?: string | number | bigint;
  readonly maxWindowsPerRun?: number;
  /** Pace reads within a run: rows per second, and requests per second announced by `await ctx.pace()`. */
  readonly rateLimit?: { readonly rowsPerSecond?: number; readonly requestsPerSecond?: number };
}

export interface TableDefinition<S = Json> {
  readonly [TABLE_TAG]: true;
  readonly source: string;
  readonly name: string;
  readonly options: TableOptions;
  readonly fn: TableFunction<S>;
  /** Set by the module loader: the module file, for error messages. */
  module?: string;
}

export interface Checkpoint {
  readonly [CHECKPOINT_TAG]: true;
  readonly state: Json;
}

export interface SourceBuilder {
  readonly name: string;
  table<S = Json>(options: TableOptions, fn: TableFunction<S>): TableDefinition<S>;
  table<S = Json>(fn: TableFunction<S>): TableDefinition<S>;
}

/** Names a source; `sqlload.toml` lists it as `[sources.<name>]` with `connector = "typescript"`. */
export function source(name: string): SourceBuilder {
  return {
    name,
    table<S>(optionsOrFn: TableOptions | TableFunction<S>, maybeFn?: TableFunction<S>): TableDefinition<S> {
      const [options, fn] = typeof optionsOrFn === "function" ? [{}, optionsOrFn] : [optionsOrFn, maybeFn];
      if (typeof fn !== "function")
        throw new TypeError(`source("${name}").table(): the second argument must be the table function`);
      const tableName = options.name ?? fn.name;
      if (!tableName)
        throw new TypeError(`source("${name}").table(): give the table a name (options.name) or use a named function`);
      return { [TABLE_TAG]: true, source: name, name: tableName, options, fn };
    },
  };
}

/** Marks the position after the rows yielded so far (needs `state: "logged"`). `checkpoint(null)` clears it. */
export function checkpoint(state: Json): Checkpoint {
  return { [CHECKPOINT_TAG]: true, state };
}

export function isTableDefinition(value: unknown): value is TableDefinition<unknown> {
  return !!value && typeof value === "object" && (value as Record<symbol, unknown>)[TABLE_TAG] === true;
}

export function isCheckpoint(value: unknown): value is Checkpoint {
  return !!value && typeof value === "object" && (value as Record<symbol, unknown>)[CHECKPOINT_TAG] === true;
}
