import type { Column } from "../connector/logical-types.js";
import { columnMaxCursor, type RecordBatch, selectColumns } from "../connector/record-batch.js";
import type {
  CursorRange,
  SourceConnection,
  SourceItem,
  SourceTableInfo,
  SourceTableReader,
  SourceTableRequest,
} from "../connector/source.js";
import { formatTargetTable } from "../connector/table-ref.js";
import type { CommitUnit, TargetConnection } from "../connector/target.js";
import { type CursorValue, compareCursor, cursorEquals, cursorToString, maxCursor } from "../cursor/cursor-value.js";
import { asSqlloadError, isSqlloadError, SqlloadError } from "../errors/sqlload-error.js";
import type { EmitEvent, TableResult } from "../events/run-event.js";
import { CHUNK_BYTES } from "../plan/commit-mode.js";
import type { TablePlan } from "../plan/plan-table.js";
import { windowAt, windowIndexOf } from "../plan/windows.js";
import { appendRunLogRecord } from "../state/append-record.js";
import type { Json } from "../state/json.js";
import { encodeRunLogRecord } from "../state/run-log.js";
import { crashPoint } from "./crash-points.js";
import { DuplicateKeyCheck } from "./key-check.js";
import type { LoggedStart } from "./prepare-table.js";
import { inCursorRange, keepInRange } from "./range-filter.js";

export interface RunTableArgs {
  readonly plan: TablePlan;
  readonly source: SourceConnection;
  readonly request: SourceTableRequest;
  readonly info: SourceTableInfo;
  readonly target: TargetConnection;
  /** The target table's columns before the run; undefined when it does not exist. */
  readonly targetColumns: readonly Column[] | undefined;
  readonly runId: string;
  readonly emit: EmitEvent;
  readonly signal: AbortSignal;
  /** A logged table's starting position (SPEC §10–§11). */
  readonly logged?: LoggedStart | undefined;
  /** Bytes between commits of an ordered read; default about 1 GB. */
  readonly chunkBytes?: number | undefined;
}

/** One read of the source into one or more commit units. */
interface ReadPass {
  readonly range: CursorRange;
  /** What `delete_insert` replaces, when more than `range` (windows skipped for holding no source rows). */
  readonly deleteRange?: CursorRange | undefined;
  readonly includeNulls: boolean;
  readonly window?: { readonly index: number; readonly count: number } | undefined;
}

/**
 * Runs one table's plan: reads the source and commits into the target as the plan's commit mode
 * says, writing a run-log record in every commit. Never throws: failures become a `failed`
 * result (the commit in flight is aborted; earlier commits stay).
 */
export async function runTable(args: RunTableArgs): Promise<TableResult> {
  const run = new TableRun(args);
  return run.execute();
}

class TableRun {
  private readonly plan: TablePlan;
  private readonly tableName: string;
  private readonly started = Date.now();
  private rows = 0;
  /** Rows written into the commit unit in flight. */
  private unitRows = 0;
  private dropped = 0;
  private windowsDone = 0;
  private position: CursorValue | null;
  private readonly positionBefore: CursorValue | null;
  private columns: readonly Column[] | undefined;
  private ensured = false;
  private readonly keyCheck: DuplicateKeyCheck | undefined;
  private unit: CommitUnit | undefined;
  /** A logged table's position: what the next commit records, and what reads are handed. */
  private state: Json | undefined;
  /** What has committed: a failed table reports these, not what its aborted unit held. */
  private committedRows = 0;
  private committedPosition: CursorValue | null;

  constructor(private readonly args: RunTableArgs) {
    this.plan = args.plan;
    this.tableName = formatTargetTable(args.plan.target);
    this.position = args.plan.targetMax;
    this.positionBefore = this.position;
    this.committedPosition = this.position;
    this.columns = args.info.columns;
    this.state = args.logged?.state;
    this.keyCheck =
      this.plan.strategy === "merge" && this.plan.primaryKey
        ? new DuplicateKeyCheck(this.plan.primaryKey, this.tableName)
        : undefined;
  }

  async execute(): Promise<TableResult> {
    const { emit } = this.args;
    emit({ type: "table_started", table: this.tableName, plan: this.plan });
    let reader: SourceTableReader | undefined;
    let caughtUp: boolean | undefined;
    try {
      reader = await this.args.source.openTable(this.args.request, this.args.info);
      if (this.args.logged?.reconcile) await this.reconcile(this.args.logged.reconcile);
      caughtUp = await this.load(reader);
      await this.publishStaged();
      const result = this.result("loaded", caughtUp);
      emit({ type: "table_completed", result });
      return result;
    } catch (error) {
      await this.unit?.abort().catch(() => {});
      this.unit = undefined;
      // A staged target holds what failed runs committed until told to drop it.
      if (this.args.target.capabilities.commitModel === "staged") {
        await this.args.target.discard?.(this.plan.target).catch((discardError) => {
          this.args.emit({
            type: "table_warning",
            table: this.tableName,
            message: `could not drop what this run staged: ${(discardError as Error).message}`,
          });
        });
      }
      const err =
        this.args.signal.aborted && !isSqlloadError(error)
          ? this.interrupted()
          : asSqlloadError(error, "SL304", `load of ${this.tableName} failed`, { table: this.tableName });
      // A retryable failure before anything committed left the table as it was: skipped, not failed.
      const skipped = err.retryable && this.committedRows === 0 && this.windowsDone === 0;
      const result = this.result(skipped ? "skipped" : "failed", undefined, err);
      emit({ type: skipped ? "table_skipped" : "table_failed", result });
      return result;
    } finally {
      await reader?.close().catch(() => {});
    }
  }

  private result(status: TableResult["status"], caughtUp: boolean | undefined, error?: SqlloadError): TableResult {
    const reportsCaughtUp =
      this.plan.end?.reason === "cursor_end" ||
      this.plan.end?.reason === "--end-cursor" ||
      this.plan.windows?.perRun !== undefined;
    return {
      table: this.tableName,
      source: this.plan.source,
      key: this.plan.key,
      status,
      rows: this.committedRows,
      dropped: this.dropped,
      windows: this.windowsDone,
      commits: this.unitsCommitted,
      positionBefore: this.positionBefore,
      positionAfter: this.committedPosition,
      ...(reportsCaughtUp && status === "loaded" ? { caughtUp: caughtUp ?? true } : {}),
      seconds: (Date.now() - this.started) / 1000,
      ...(error ? { error } : {}),
    };
  }

  /** Returns whether the table is caught up (no window left before its end). */
  private async load(reader: SourceTableReader): Promise<boolean> {
    const plan = this.plan;
    if (plan.commit === "swap") {
      // One unit for everything: a new table built and swapped in at the end.
      const passes: ReadPass[] = plan.windows
        ? Array.from({ length: plan.windows.count }, (_, k) => ({
            range: windowAt(plan.windows!, k),
            includeNulls: false,
            window: { index: k, count: plan.windows!.count },
          }))
        : [{ range: plan.range, includeNulls: plan.includeNulls }];
      for (const pass of passes) await this.readPass(reader, pass, false);
      await this.commitUnit(undefined, undefined);
      return true;
    }
    if (!plan.windows) {
      await this.readPass(reader, { range: plan.range, includeNulls: plan.includeNulls }, plan.commit === "chunked");
      await this.commitUnit(undefined, undefined);
      return true;
    }
    return this.loadWindows(reader, plan.windows);
  }

  private async loadWindows(reader: SourceTableReader, windows: NonNullable<TablePlan["windows"]>): Promise<boolean> {
    const limit = windows.perRun ?? Number.POSITIVE_INFINITY;
    let k = 0;
    let read = 0;
    while (k < windows.count) {
      this.throwIfAborted();
      const skipTo = await this.nextWindowWithRows(reader, windows, k);
      if (skipTo === undefined) {
        // Nothing left before the end: an empty window still moves the position, here to the end.
        await this.commitEmpty(
          { from: windowAt(windows, k).from, to: windows.end },
          { index: windows.count - 1, count: windows.count },
        );
        return true;
      }
      if (read >= limit) return false;
      const window = windowAt(windows, skipTo);
      // Under delete_insert the skipped windows are replaced too: they hold no source rows.
      const deleted = skipTo > k ? { from: windowAt(windows, k).from, to: window.to } : window;
      const info = { index: skipTo, count: windows.count };
      await this.readPass(reader, { range: window, deleteRange: deleted, includeNulls: false, window: info }, false);
      await this.commitUnit(window, info);
      read++;
      k = skipTo + 1;
    }
    return true;
  }

  /**
   * The first window from `k` in which the source has rows (asked of the source, so a bounded run
   * always moves data when any is left), `k` itself when the source cannot say, undefined when
   * no rows are left before the end.
   */
  private async nextWindowWithRows(
    reader: SourceTableReader,
    windows: NonNullable<TablePlan["windows"]>,
    k: number,
  ): Promise<number | undefined> {
    const from = windowAt(windows, k).from;
    if (!reader.firstCursorAtOrAfter || !from) return k;
    const next = await reader.firstCursorAtOrAfter(from);
    if (!next || compareCursor(next, windows.end) >= 0) return undefined;
    return Math.max(k, windowIndexOf(windows, next));
  }

  private interrupted(): SqlloadError {
    return new SqlloadError("SL307", `load of ${this.tableName} was interrupted`, { table: this.tableName });
  }

  private throwIfAborted(): void {
    if (this.args.signal.aborted) throw this.interrupted();
  }

  /** Reads one range into the current unit (beginning it when needed); with `chunked`, commits at safe points. */
  private async readPass(reader: SourceTableReader, pass: ReadPass, chunked: boolean): Promise<void> {
    const iterator = reader
      .read({
        range: pass.range,
        includeNulls: pass.includeNulls,
        ordered: chunked,
        window: pass.window,
        state: this.state,
        signal: this.args.signal,
      })
      [Symbol.asyncIterator]();
    const chunkBytes = this.args.chunkBytes ?? CHUNK_BYTES;
    let bytes = 0;
    let pending: IteratorResult<SourceItem> | undefined = await this.next(iterator);
    if (!this.unit) await this.beginUnit(pending.done ? undefined : pending.value, pass);
    while (!pending.done) {
      this.throwIfAborted();
      const item = pending.value;
      if (item.kind === "batch") {
        crashPoint("read");
        await this.write(item.batch, pass);
        crashPoint("write");
      } else if (item.kind === "checkpoint") {
        if (!this.args.logged)
          throw new SqlloadError("SL501", `table ${this.tableName} yielded a checkpoint but keeps no logged state`, {
            table: this.tableName,
          });
        // A checkpoint marks exactly what the rows before it cover: commit them with it
        // (a table being rebuilt commits once, at the swap, with the last checkpoint).
        this.state = item.state;
        if (this.plan.commit !== "swap") {
          await this.commitUnit(undefined, undefined);
          await this.beginUnit(undefined, { ...pass, range: {} }, false);
        }
      } else if (item.kind === "commit-point" && chunked) {
        bytes += item.bytesSinceLast ?? 0;
        if (bytes >= chunkBytes || item.required) {
          bytes = 0;
          await this.commitUnit(undefined, undefined);
          await this.beginUnit(undefined, { ...pass, range: {} }, false);
        }
      }
      pending = await this.next(iterator);
    }
  }

  /** The next item, or SL307 as soon as the run is interrupted: a slow source must not hold a rollback up. */
  private async next(iterator: AsyncIterator<SourceItem>): Promise<IteratorResult<SourceItem>> {
    const { signal } = this.args;
    this.throwIfAborted();
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new SqlloadError("SL307", `load of ${this.tableName} was interrupted`, { table: this.tableName }));
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([iterator.next(), aborted]);
    } catch (error) {
      if (signal.aborted) {
        // Let the source clean up in the background; its pending read is abandoned.
        void iterator.return?.().catch(() => {});
        throw error;
      }
      throw asSqlloadError(error, "SL304", `reading ${this.plan.source}.${this.plan.key} failed`, { table: this.tableName });
    } finally {
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  /** Makes sure the target table exists (when its columns are known) and begins a commit unit. */
  private async beginUnit(first: SourceItem | undefined, pass: ReadPass, deleteRange = true): Promise<void> {
    const { target } = this.args;
    const plan = this.plan;
    if (!this.columns && first?.kind === "batch") this.columns = first.batch.schema;
    const columns = this.projectSchema(this.columns ?? this.args.targetColumns);
    const replacing = plan.commit === "swap";
    const onTarget = async <T>(what: string, action: () => Promise<T>): Promise<T> => {
      try {
        return await action();
      } catch (error) {
        throw asSqlloadError(error, "SL305", `${what} ${this.tableName} failed`, { table: this.tableName });
      }
    };
    if (!replacing && columns && !this.ensured) {
      this.columns = await onTarget("preparing", () =>
        target.ensureTable(plan.target, columns, {
          primaryKey: plan.primaryKey,
          strategy: plan.strategy,
          cursor: this.cursorRef,
        }),
      );
      this.ensured = true;
    }
    const unit = await onTarget("starting a commit on", () =>
      target.begin(plan.target, {
        strategy: replacing ? "replace" : plan.strategy,
        columns: columns ?? [],
        primaryKey: plan.primaryKey,
        cursor: this.cursorRef,
        tableStrategy: plan.strategy,
      }),
    );
    this.unit = unit;
    const range = pass.deleteRange ?? pass.range;
    if (deleteRange && !replacing && plan.strategy === "delete_insert" && this.ensured) {
      await onTarget("deleting the range read from", () => unit.deleteRange(range, { includeNulls: pass.includeNulls }));
      if (this.position && inCursorRange(this.position, range)) this.position = null;
    }
  }

  private get cursorRef() {
    const cursor = this.plan.cursor;
    return cursor ? { column: cursor.column, kind: cursor.kind } : undefined;
  }

  /** Keeps only the configured `columns`. */
  private project(batch: RecordBatch): RecordBatch {
    const wanted = this.plan.columns;
    if (!wanted || (batch.schema.length === wanted.length && batch.schema.every((c, i) => c.name === wanted[i]))) return batch;
    return selectColumns(
      batch,
      wanted.filter((name) => batch.schema.some((c) => c.name === name)),
    );
  }

  private projectSchema(columns: readonly Column[] | undefined): readonly Column[] | undefined {
    const wanted = this.plan.columns;
    return wanted && columns ? columns.filter((c) => wanted.includes(c.name)) : columns;
  }

  private async write(raw: RecordBatch, pass: ReadPass): Promise<void> {
    let batch = this.project(raw);
    const cursor = this.plan.cursor;
    const cursorIndex = cursor ? batch.schema.findIndex((c) => c.name === cursor.column) : -1;
    if (cursor && cursorIndex < 0) {
      throw new SqlloadError("SL200", `table ${this.tableName}: cursor column "${cursor.column}" is not in the rows read`, {
        table: this.tableName,
      });
    }
    if (cursor && !this.args.source.capabilities.exactRange) {
      const kept = keepInRange(batch, cursorIndex, pass.range, pass.includeNulls);
      batch = kept.batch;
      this.dropped += kept.dropped;
    }
    if (batch.length === 0) return;
    this.keyCheck?.check(batch);
    if (cursor) this.position = maxCursor(this.position, columnMaxCursor(batch, cursorIndex));
    try {
      await this.unit!.write(batch);
    } catch (error) {
      throw asSqlloadError(error, "SL305", `writing ${this.tableName} failed`, { table: this.tableName });
    }
    this.rows += batch.length;
    this.unitRows += batch.length;
    this.args.emit({
      type: "rows_read",
      table: this.tableName,
      rows: this.rows,
      windowsDone: this.windowsDone,
      windowsTotal: this.plan.windows?.count,
    });
  }

  /**
   * A staged target holds committed units back until `publish`. `delete_insert` publishes once,
   * after the whole run, so a stopped run publishes nothing (SPEC §6); every other strategy
   * publishes each unit as it commits.
   */
  private get publishesAtEnd(): boolean {
    return this.args.target.capabilities.commitModel === "staged" && this.plan.publish === "end-of-run";
  }

  private async publishStaged(): Promise<void> {
    if (this.publishesAtEnd && this.unitsCommitted > 0) await this.publish();
  }

  private async publish(): Promise<void> {
    const { target } = this.args;
    if (!target.publish) throw new SqlloadError("SL900", `staged target cannot publish ${this.tableName}: it has no publish()`);
    try {
      await target.publish(this.plan.target);
    } catch (error) {
      throw asSqlloadError(error, "SL305", `publishing ${this.tableName} failed`, { table: this.tableName });
    }
    this.args.emit({ type: "table_published", table: this.tableName, rows: this.rows, position: this.position });
  }

  private unitsCommitted = 0;
  /** The logged state the last commit of this run recorded, as JSON. */
  private committedState: string | undefined;

  /** A unit with no rows, no window, and the same state and position as this run's last commit. */
  private changesNothing(window: CursorRange | undefined): boolean {
    return (
      this.unitsCommitted > 0 &&
      this.unitRows === 0 &&
      window === undefined &&
      this.plan.commit !== "swap" &&
      this.committedState === JSON.stringify(this.state ?? null) &&
      cursorEquals(this.position, this.committedPosition)
    );
  }

  /** Writes the run-log record and commits the current unit. */
  private async commitUnit(window: CursorRange | undefined, info: { index: number; count: number } | undefined): Promise<void> {
    const unit = this.unit;
    if (!unit) return;
    if (this.plan.commit === "swap" && !this.columns && !this.args.targetColumns) {
      // Nothing was read and no columns are known: there is no table to build. A logged table
      // being started over still records that its position is gone.
      await unit.abort();
      this.unit = undefined;
      if (this.args.logged) {
        await appendRunLogRecord(this.args.target, this.plan.target, {
          runId: this.args.runId,
          table: this.tableName,
          at: new Date().toISOString(),
          event: "run",
          state: this.state ?? null,
          cursor: null,
          rows: 0,
        });
      }
      return;
    }
    if (this.changesNothing(window)) {
      // A record that repeats the last one would only clutter the log (a checkpoint that moved
      // nothing, the empty tail after the last checkpoint); this run's first record marks it.
      await unit.abort();
      this.unit = undefined;
      return;
    }
    const record = encodeRunLogRecord({
      runId: this.args.runId,
      table: this.tableName,
      at: new Date().toISOString(),
      event: "run",
      ...(this.args.logged ? { state: this.state ?? null } : {}),
      cursor: this.position,
      windowEnd: window?.to ?? null,
      rows: this.unitRows,
    });
    try {
      await unit.appendRunLog(record);
      crashPoint("write");
      await unit.commit();
      crashPoint("commit");
    } catch (error) {
      throw asSqlloadError(error, "SL305", `committing ${this.tableName} failed`, { table: this.tableName });
    }
    this.unit = undefined;
    this.unitsCommitted++;
    this.committedRows += this.unitRows;
    this.committedPosition = this.position;
    this.committedState = JSON.stringify(this.state ?? null);
    this.keyCheck?.reset();
    if (this.args.target.capabilities.commitModel === "staged" && !this.publishesAtEnd) await this.publish();
    if (window) this.windowsDone++;
    this.args.emit({
      type: "window_committed",
      table: this.tableName,
      window: info,
      range: window ?? this.plan.range,
      rows: this.unitRows,
      totalRows: this.rows,
      position: this.position,
    });
    this.unitRows = 0;
  }

  /** The log and the data disagree: the data wins, and a visible record says so. */
  private async reconcile(mismatch: NonNullable<LoggedStart["reconcile"]>): Promise<void> {
    const shown = (v: CursorValue | null) => (v ? cursorToString(v) : "none");
    const note = `logged cursor ${shown(mismatch.logged)} differs from the data's maximum ${shown(mismatch.data)}: the data wins and the logged state is dropped`;
    try {
      await appendRunLogRecord(this.args.target, this.plan.target, {
        runId: this.args.runId,
        table: this.tableName,
        at: new Date().toISOString(),
        event: "reconcile",
        state: null,
        cursor: mismatch.data,
        rows: 0,
        note,
      });
    } catch (error) {
      throw asSqlloadError(error, "SL305", `reconciling ${this.tableName} failed`, { table: this.tableName });
    }
    this.args.emit({ type: "table_reconciled", table: this.tableName, note });
  }

  /**
   * Records that windows up to `range.to` hold no source rows: an empty window still moves the
   * position, and under `delete_insert` the range is replaced by nothing.
   */
  private async commitEmpty(range: CursorRange, info: { index: number; count: number }): Promise<void> {
    await this.beginUnit(undefined, { range, includeNulls: false });
    await this.commitUnit(range, info);
  }
}
