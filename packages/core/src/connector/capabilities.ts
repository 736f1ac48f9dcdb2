import type { WriteStrategy } from "./target.js";

/**
 * How a target's commits become visible:
 * - `transactional`: each commit unit is one transaction, data and run-log record together;
 * - `staged`: `commit` lands a unit in staging and `publish` makes staged units visible together
 *   (ClickHouse); such a target has `publish` and `discard`;
 * - `data-then-log`: the data commits first and the run-log record after it, in a second commit
 *   (Databricks without catalog-managed commits). A crash between the two leaves the log behind
 *   the data, which only the data's own cursor survives: core refuses logged tables there.
 */
export type CommitModel = "transactional" | "staged" | "data-then-log";

export const commitModels: readonly CommitModel[] = ["transactional", "staged", "data-then-log"];

/**
 * What a target can do, declared rather than inferred from which optional methods it has. Each
 * flag has a documented default in `defaultTargetCapabilities`, so a flag added later never
 * breaks a connector written before it: spread the base and override what differs. A connection
 * whose declaration and methods disagree is refused when it opens (`checkTargetConnection`).
 */
export interface TargetCapabilities {
  /** Default `transactional`. */
  readonly commitModel: CommitModel;
  /** `deleteRange` and `maxCursor` compare text by code point. Default true; a target that cannot must say so. */
  readonly codePointText: boolean;
  /** The target has `lockTable`, holding a table against other runs. Default false (one process at a time, as an embedded file is). */
  readonly locking: boolean;
  /** The strategies its commit units implement. Default all four; a table asking for another fails before reading. */
  readonly writeStrategies: readonly WriteStrategy[];
  /**
   * `data-then-log` targets: the target setting that makes the run log share the data's commit,
   * named in the error refusing a logged table (`catalog_managed_commits = true`).
   */
  readonly loggedTablesSetting?: string | undefined;
  /**
   * Commit units have `runLogOfRun`, reading the run log inside their own transaction, so a window
   * that a run already committed is skipped rather than committed again when the same run is
   * executed twice (a queue job run again after its worker died). Default false.
   */
  readonly commitGuard: boolean;
  /**
   * A `--reload` of a windowed table is built window by window in a build table
   * (`reloadBuildTable`) across as many runs as it takes, while the table stays live, and swapped
   * in at the end with the record ending the reload (`swapReloadBuild`, one transaction). Needs
   * transactional DDL. Default false: a reload is built and swapped in one commit, in one run.
   */
  readonly resumableReload: boolean;
  /**
   * The engines whose file scans (`FileScan`) its commit units run with `ingestFiles`, reading a
   * source's files themselves instead of receiving their rows. Default none.
   */
  readonly fileScanEngines: readonly string[];
  /**
   * A replace unit's run-log record commits after its swap, not with it: the swap is DDL that
   * cannot join a transaction (BigQuery's `CREATE OR REPLACE TABLE … COPY`, Snowflake's `SWAP
   * WITH`, Databricks' `CREATE OR REPLACE … AS SELECT`). Such a target's replace units must honour
   * `CommitUnitOptions.recordWithData`, which core sets where a record lost after the swap would
   * duplicate rows (see `run/replace-with-record.ts`). Default false: the swap and the record
   * commit together, or a later run finishes both (ClickHouse's journaled publish).
   */
  readonly replaceRecordAfterSwap: boolean;
}

export const defaultTargetCapabilities: TargetCapabilities = {
  commitModel: "transactional",
  codePointText: true,
  locking: false,
  writeStrategies: ["append", "delete_insert", "merge", "replace"],
  commitGuard: false,
  resumableReload: false,
  fileScanEngines: [],
  replaceRecordAfterSwap: false,
};

export interface SourceCapabilities {
  /** Reads return only rows inside the requested range, so the engine need not filter. Default false. */
  readonly exactRange: boolean;
  /** Reads can be ordered by cursor and yield `commit-point`s between distinct values. Default false. */
  readonly orderedReads: boolean;
  /** All reads of one opened table see one snapshot. Default false. */
  readonly snapshot: boolean;
  /**
   * Opened tables have `firstCursorAtOrAfter`, so a windowed load skips windows holding no rows.
   * Default false: every window is read.
   */
  readonly firstCursorLookup: boolean;
}

export const defaultSourceCapabilities: SourceCapabilities = {
  exactRange: false,
  orderedReads: false,
  snapshot: false,
  firstCursorLookup: false,
};
