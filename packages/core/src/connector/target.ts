import type { CursorKind } from "../cursor/cursor-kind.js";
import type { CursorValue } from "../cursor/cursor-value.js";
import type { RunLogRow } from "../state/run-log.js";
import type { TargetCapabilities } from "./capabilities.js";
import type { FileScan, FileScanWritten } from "./file-scan.js";
import type { Column } from "./logical-types.js";
import type { RecordBatch } from "./record-batch.js";
import type { CursorRange } from "./source.js";
import type { TargetTableRef } from "./table-ref.js";

export type WriteStrategy = "append" | "delete_insert" | "merge" | "replace";

export interface TargetTableInfo {
  readonly columns: readonly Column[];
  /**
   * Optional: the collation each text column sets, itself or through its table or schema, by
   * column name. sqlload compares by code point and does not override a collation the user set;
   * `plan` warns about one on the cursor or the primary key. Targets that always compare by code
   * point (Postgres under `COLLATE "C"`) leave it out.
   */
  readonly collations?: Readonly<Record<string, string>> | undefined;
}

export interface RunLogReadOptions {
  /** Enough: the newest `last` rows. */
  readonly last?: number | undefined;
}

export interface CommitUnitOptions {
  /**
   * How `write` lands rows: `append` and `delete_insert` insert, `merge` upserts on `primaryKey`,
   * `replace` builds a new table that `commit` swaps in (also used for `--reload`).
   */
  readonly strategy: WriteStrategy;
  /** The table's columns, as `ensureTable` left them (for `replace`: the new table's columns). */
  readonly columns: readonly Column[];
  readonly primaryKey?: readonly string[] | undefined;
  readonly cursor?: { readonly column: string; readonly kind: CursorKind } | undefined;
  /**
   * The table's configured strategy. It differs from `strategy` only under `--reload`, where a
   * unit with strategy `replace` rebuilds a table whose strategy (say `merge`) shapes its layout.
   */
  readonly tableStrategy?: WriteStrategy | undefined;
  /**
   * The table whose run log the unit's records go to, when not the table it writes: a reload's
   * build units write the build table and log under the live one (`resumableReload`).
   */
  readonly runLogTable?: TargetTableRef | undefined;
  /**
   * Only for `replace` units, only on targets declaring `replaceRecordAfterSwap`: replace the
   * table's rows inside the unit's one transaction — delete every row, insert the unit's rows,
   * append its run-log records, commit — instead of swapping a build in, so the record cannot be
   * lost after the rows changed. Core has run `ensureTable` first (the schema-evolution DDL), so
   * `columns` are the live table's and fit every row the unit writes.
   */
  readonly recordWithData?: boolean | undefined;
}

/** What `ensureTable` is told about the table it creates: enough to choose engine and sort keys. */
export interface EnsureTableOptions {
  readonly primaryKey?: readonly string[] | undefined;
  readonly strategy?: WriteStrategy | undefined;
  readonly cursor?: { readonly column: string; readonly kind: CursorKind } | undefined;
}

/**
 * One commit: everything done through a unit lands together at `commit` or not at all at
 * `abort`. Core decides when units begin and end; the connector decides how.
 */
export interface CommitUnit {
  /** Deletes the target rows whose cursor lies in `range`, comparing text by code point. */
  deleteRange(range: CursorRange, options?: { readonly includeNulls?: boolean }): Promise<void>;
  /**
   * Writes rows by column name; target columns the batch lacks get NULL. The batch is the
   * unit's to read until the promise settles, not after (see SourceItem): a unit that keeps it to
   * write later keeps `heldBatch(batch)`.
   */
  write(batch: RecordBatch): Promise<void>;
  /** Appends a run-log record in the same commit as the data. */
  appendRunLog(row: RunLogRow): Promise<void>;
  /**
   * Targets declaring `commitGuard`: the table's run-log rows written by `runId`, read inside this
   * unit's transaction, so the check and the commit see one state.
   */
  runLogOfRun?(runId: string): Promise<readonly RunLogRow[]>;
  /**
   * Targets listing the scan's engine in `fileScanEngines`: inserts the rows of `scan`, reading
   * its files itself, into `columns` (table columns by name; the others get NULL), as `write`
   * would have inserted the same rows.
   */
  ingestFiles?(scan: FileScan, columns: readonly string[]): Promise<FileScanWritten>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** What a target is told when `plan` asks it for notes on a table. */
export interface PlanNoteContext {
  readonly cursor?: { readonly column: string; readonly kind: CursorKind } | undefined;
  /**
   * The table's configured strategy; a range delete happens only under `delete_insert` (and
   * not when `--reload` rebuilds the table, which `range` being undefined does not tell apart).
   */
  readonly strategy?: WriteStrategy | undefined;
  /** The run rebuilds the table (`replace`, `--reload`, a resumable reload's build): nothing is deleted from it by range. */
  readonly rebuild?: boolean | undefined;
  /** The range this run reads (and, under delete_insert, replaces). */
  readonly range?: CursorRange | undefined;
  readonly includeNulls?: boolean | undefined;
}

export interface TargetConnection {
  readonly capabilities: TargetCapabilities;
  /**
   * Optional: reaches the server now (e.g. `SELECT 1`), for a connection that otherwise connects
   * lazily, so that a refused connection fails while core retries opening it. Throw the connector's
   * connection error (retryable) for a refused or reset connection, a non-retryable one for a login.
   */
  connect?(): Promise<void>;
  describeTable(ref: TargetTableRef): Promise<TargetTableInfo | null>;
  /**
   * Optional: lines `plan` shows under the table that only the target can tell — the commit model
   * it chose, a collation on the cursor, what a range delete would scan. Reads metadata only.
   */
  planNotes?(ref: TargetTableRef, context: PlanNoteContext): Promise<readonly string[]>;
  /**
   * The maximum of a cursor column, in code point order for text; null when the table is empty or
   * absent. `options.atOrAbove` is the cursor the run log last recorded, when core has read it: a
   * target may first bound its read by it (a literal, so partitions prune), but must return the
   * true maximum when nothing lies at or above it (the data wins over the log).
   */
  maxCursor(
    ref: TargetTableRef,
    column: string,
    kind: CursorKind,
    options?: { readonly atOrAbove?: CursorValue | null | undefined },
  ): Promise<CursorValue | null>;
  /**
   * Creates the table, or adds the columns it lacks. A column whose type no longer fits throws
   * SL302 naming table, column, old and new type, and changes nothing. `begin` may come first, on a
   * table that does not exist yet: such a unit only appends run-log records.
   */
  ensureTable(ref: TargetTableRef, columns: readonly Column[], options: EnsureTableOptions): Promise<readonly Column[]>;
  begin(ref: TargetTableRef, options: CommitUnitOptions): Promise<CommitUnit>;
  /** Staged targets only: makes every committed unit of the table visible at once. */
  publish?(ref: TargetTableRef): Promise<void>;
  /** Staged targets only: drops what the table's units staged but did not publish (a failed or stopped run). */
  discard?(ref: TargetTableRef): Promise<void>;
  /**
   * The table's run-log rows in the order they were written: those whose `table` is
   * `formatTargetTable(ref)`. With `last`, only the newest `last` of them (all of them when there
   * are fewer), still in the order written: a load reads its position from the end of a log that
   * grows by a record per commit. Returning the whole log instead is correct, only slower; any
   * other number of rows is not (core takes fewer than `last`, or more, for the whole log).
   */
  readRunLog(ref: TargetTableRef, options?: RunLogReadOptions): Promise<readonly RunLogRow[]>;
  /**
   * Targets declaring `resumableReload`: where a reload of `ref` is built while `ref` stays live
   * (a name beside it, such as `<name>__sqlload_reload`). Core reads, creates and evolves it with
   * the ordinary methods and writes it through units whose `runLogTable` is `ref`.
   */
  reloadBuildTable?(ref: TargetTableRef): TargetTableRef;
  /**
   * Targets declaring `resumableReload`: in one transaction, puts the build table in place of
   * `ref` (readers see the old table or the new one, never none) and appends `row` to the run log
   * of `ref`. Without a build table it only appends `row`, and `ref` stays as it is.
   */
  swapReloadBuild?(ref: TargetTableRef, row: RunLogRow): Promise<void>;
  /** Targets declaring `resumableReload`: drops the build table of `ref`, if there is one. */
  dropReloadBuild?(ref: TargetTableRef): Promise<void>;
  /** Holds the table against other runs until released; throws SL306 when another run holds it. */
  lockTable?(ref: TargetTableRef): Promise<{ release(): Promise<void> }>;
  close(): Promise<void>;
}
