import type { Column, SourceConnection, SourceTableRef, TargetConnection, TargetTableRef } from "@sqlload/core";
import type { Skips } from "./capabilities.js";

/** A row as the suites hand it to a harness: values in any form `batchFromRows` accepts. */
export type InputRow = Readonly<Record<string, unknown>>;

/**
 * What a target harness gives one test: a connection of its own and a schema no other test
 * uses. The suite closes `target` and then calls `cleanup`.
 */
export interface TargetFixture {
  readonly target: TargetConnection;
  /**
   * A schema no other test touches. A few cases also create schemas whose names start with
   * this one (`<schema> "odd.schema"`, `<schema>_2`): `cleanup` must remove those too.
   */
  readonly schema: string;
  /**
   * Every committed row of a table as a reader outside the connector sees it, keyed by column
   * name; `null` when the table does not exist. Read with the engine's own client and a
   * connection of its own, never through the connector's commit units: the suite calls it while
   * a unit is open to check that nothing shows before `commit` (or `publish`). Values may come
   * in any form `normalizeValue` accepts (see the README): bigint or digit strings for 64-bit
   * integers, day numbers or `YYYY-MM-DD` for dates, microseconds for timestamps, hex or bytes
   * for binary, JSON text or arrays for lists.
   */
  readAll(ref: TargetTableRef): Promise<readonly Readonly<Record<string, unknown>>[] | null>;
  /** Removes what the test made (its schemas, files, databases). */
  cleanup(): Promise<void>;
}

export interface TargetHarness {
  /** Cases the connector cannot pass, by capability, each with the reason (shown in the report). */
  readonly skips?: Skips;
  /**
   * The target reads only the newest `last` records when `readRunLog` is asked for them (which a
   * target may also ignore, returning the whole log): the suite then expects exactly those.
   */
  readonly readsNewestRunLog?: boolean;
  /** A fresh connection and schema; called once per test. */
  connect(): Promise<TargetFixture>;
}

/**
 * What a source harness gives one test. Tables are created first, then the source is opened
 * (some sources, like TypeScript modules, learn their tables when they open).
 */
export interface SourceFixture {
  /**
   * Creates a table in the source system holding `rows` (values in any form `batchFromRows`
   * accepts for `columns`), and returns the ref a `SourceTableRequest` names it by. Column and
   * table names may hold quotes, dots, spaces and any Unicode.
   */
  createTable(name: string, columns: readonly Column[], rows: readonly InputRow[]): Promise<SourceTableRef>;
  /**
   * The table options (the keys of `[sources.X.tables.NAME]`) every `SourceTableRequest` for
   * `table` carries, for sources that find a table by them, like a files source's `glob` and
   * `format`. Called with refs `createTable` returned and with refs of tables that do not
   * exist (the SL206 case). Optional: without it requests carry `{}`.
   */
  tableOptions?(table: SourceTableRef): Readonly<Record<string, unknown>>;
  /** Opens the source, after the test's tables exist. Called at most once per test. */
  openSource(): Promise<SourceConnection>;
  /**
   * Adds rows to a table made by `createTable`, committed, from outside the open source. Needed
   * only by the snapshot case (sources whose capabilities say `snapshot`).
   */
  insertRows?(table: SourceTableRef, columns: readonly Column[], rows: readonly InputRow[]): Promise<void>;
  /** Removes what the test made; the suite has closed the source before. */
  cleanup(): Promise<void>;
}

export interface SourceHarness {
  readonly skips?: Skips;
  connect(): Promise<SourceFixture>;
}
