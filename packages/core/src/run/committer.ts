import type { FileScan } from "../connector/file-scan.js";
import type { Column } from "../connector/logical-types.js";
import type { CursorRange } from "../connector/source.js";
import type { CommitUnit, TargetConnection } from "../connector/target.js";
import { type CursorValue, cursorEquals, cursorToString } from "../cursor/cursor-value.js";
import { asSqlloadError, SqlloadError } from "../errors/sqlload-error.js";
import type { EmitEvent } from "../events/run-event.js";
import type { TablePlan } from "../plan/plan-table.js";
import { appendRunLogRecord } from "../state/append-record.js";
import type { Json } from "../state/json.js";
import { decodeRunLogRow, encodeRunLogRecord, type RunLogEvent, type RunLogRecord } from "../state/run-log.js";
import type { CommitSchedule, WindowRef } from "./commit-schedule.js";
import { crashPoint } from "./crash-points.js";
import { DuplicateKeyCheck } from "./key-check.js";
import type { LoggedStart } from "./prepare-table.js";
import type { BatchFilter, KeptBatch, ReadPosition } from "./read-items.js";
import { replacesWithRecord, replaceWithRecordError } from "./replace-with-record.js";
import { TargetExtent } from "./target-extent.js";

export interface CommitterArgs {
  readonly plan: TablePlan;
  readonly schedule: CommitSchedule;
  readonly target: TargetConnection;
  /** The source's columns, when known before reading. */
  readonly sourceColumns: readonly Column[] | undefined;
  /** The target table's columns before the run; undefined when it does not exist. */
  readonly targetColumns: readonly Column[] | undefined;
  readonly filter: BatchFilter;
  readonly position: ReadPosition;
  readonly runId: string;
  readonly table: string;
  readonly emit: EmitEvent;
  /** The table keeps logged state; `state` is where it starts. */
  readonly logged: boolean;
  /** A logged table whose run found nothing unreadable blocking it: every record says so. */
  readonly unblocked?: boolean | undefined;
  readonly state: Json | undefined;
}

/**
 * Drives the target through one table's commit units: ensures the table, begins a unit (deleting
 * the range a pass replaces), writes, and commits each unit with its run-log record, publishing
 * on staged targets when the schedule says. Counts only what committed, so a failed table
 * reports what it kept.
 */
export class Committer {
  /** What the next commit records as a logged table's state, and what reads are handed. */
  state: Json | undefined;
  /** Rows written in this run, committed or not. */
  written = 0;
  committedRows = 0;
  committedPosition: CursorValue | null;
  windowsDone = 0;
  private unit: CommitUnit | undefined;
  private unitRows = 0;
  /** Units committed in this run (a failed table reports them). */
  unitsCommitted = 0;
  /** The logged state this run's last commit recorded, as JSON. */
  private committedState: string | undefined;
  private columns: readonly Column[] | undefined;
  private ensured = false;
  /** How high the table's cursor may reach: a range above it holds nothing to delete. */
  private readonly extent: TargetExtent;
  private readonly keyCheck: DuplicateKeyCheck | undefined;
  /** A rebuild that replaces the rows in the live table, with its record, instead of swapping (see replacesWithRecord). */
  private readonly recordWithData: boolean;

  constructor(private readonly args: CommitterArgs) {
    this.state = args.state;
    this.columns = args.sourceColumns;
    this.committedPosition = args.position.value;
    const { plan } = args;
    this.extent = new TargetExtent(plan.targetMax);
    this.keyCheck = plan.strategy === "merge" && plan.primaryKey ? new DuplicateKeyCheck(plan.primaryKey, args.table) : undefined;
    this.recordWithData = replacesWithRecord(plan, args.schedule, args.target.capabilities, args.logged);
  }

  get open(): boolean {
    return this.unit !== undefined;
  }

  /** The table's columns are known before any row is read (the source described them): `begin` needs no first batch. */
  get columnsKnown(): boolean {
    return this.columns !== undefined;
  }

  /**
   * Begins a unit, first making sure the target table exists when its columns are known (from
   * the source, the first batch's schema, or the target). `replacing` is the range a unit for a
   * new pass replaces under `delete_insert`, deleted unless the table cannot hold rows in it
   * (TargetExtent); units continuing a pass replace nothing.
   */
  async begin(
    firstSchema: readonly Column[] | undefined,
    replacing?: { readonly range: CursorRange; readonly includeNulls: boolean },
  ): Promise<void> {
    const { plan, schedule, target, filter } = this.args;
    if (!this.columns && firstSchema) this.columns = firstSchema;
    const columns = filter.columnsOf(this.columns ?? this.args.targetColumns);
    const { cursor, into } = this.writeTo();
    const ensured = await this.ensureTable();
    // Rows of the rebuild land in the live table, whose columns ensureTable has made fit.
    const unitColumns = this.recordWithData && ensured ? this.columns : columns;
    const unit = await this.onTarget("starting a commit on", () =>
      target.begin(into, {
        strategy: schedule.unitStrategy,
        columns: unitColumns ?? [],
        primaryKey: plan.primaryKey,
        cursor,
        tableStrategy: plan.strategy,
        ...(plan.reloadBuild ? { runLogTable: plan.target } : {}),
        ...(this.recordWithData ? { recordWithData: true } : {}),
      }),
    );
    this.unit = unit;
    if (
      replacing &&
      schedule.deletesRange &&
      this.ensured &&
      this.extent.mayHoldRowsIn(replacing.range, replacing.includeNulls)
    ) {
      await this.onTarget("deleting the range read from", () =>
        unit.deleteRange(replacing.range, { includeNulls: replacing.includeNulls }),
      );
      this.args.position.forgetIfIn(replacing.range);
    }
  }

  /**
   * `ensureTable` before the first unit, for a table the target already has and whose columns
   * are known: run beside the source's opening of its snapshot (runPrepared), it changes nothing
   * or evolves the table as the load would anyway. A table not there yet is made by the first
   * unit, so a source that then fails to open leaves none behind; so is a rebuild's.
   */
  async ensureExistingTable(): Promise<void> {
    if (this.args.targetColumns === undefined || !this.columnsKnown || this.recordWithData) return;
    await this.ensureTable();
  }

  /** Makes sure the target table exists and has the known columns, once (`begin` does it first); true when this call did. */
  private async ensureTable(): Promise<boolean> {
    const { plan, schedule, target, filter } = this.args;
    const columns = filter.columnsOf(this.columns ?? this.args.targetColumns);
    if (this.ensured || !columns || (schedule.rebuild && !this.recordWithData)) return false;
    const { cursor, into } = this.writeTo();
    const options = { primaryKey: plan.primaryKey, strategy: plan.strategy, cursor };
    this.columns = await this.onTarget("preparing", () => target.ensureTable(into, columns, options)).catch((error: unknown) => {
      throw this.recordWithData ? replaceWithRecordError(error, this.args.table) : error;
    });
    this.ensured = true;
    return true;
  }

  /** The table the units write and the cursor they are told of. */
  private writeTo() {
    const { plan } = this.args;
    return {
      cursor: plan.cursor ? { column: plan.cursor.column, kind: plan.cursor.kind } : undefined,
      // A resumable reload writes its build table and logs under the live one.
      into: plan.reloadBuild?.table ?? plan.target,
    };
  }

  async write(kept: KeptBatch): Promise<void> {
    const { batch } = kept;
    this.keyCheck?.check(batch);
    this.args.position.advance(kept.max);
    this.extent.wrote(kept.max);
    const unit = this.unit;
    if (!unit) throw new SqlloadError("SL900", `no commit unit open for ${this.args.table}`);
    await this.onTarget("writing", () => unit.write(batch));
    this.wrote(batch.length);
  }

  /** Has the unit in flight read `scan`'s files itself (the native path): the rows, then the position they leave. */
  async ingestFiles(scan: FileScan): Promise<void> {
    const unit = this.unit;
    if (!unit) throw new SqlloadError("SL900", `no commit unit open for ${this.args.table}`);
    const { table, filter } = this.args;
    if (!unit.ingestFiles) {
      throw new SqlloadError("SL406", `target of ${table} declares file scans but its commit units have no ingestFiles()`, {
        table,
      });
    }
    const ingestFiles = unit.ingestFiles.bind(unit);
    const names = (filter.columnsOf(this.columns ?? this.args.targetColumns) ?? []).map((c) => c.name);
    const written = await this.onTarget("writing", () => ingestFiles(scan, names));
    this.args.position.advance(written.max);
    this.extent.wrote(written.max);
    this.wrote(written.rows);
  }

  private wrote(rows: number): void {
    this.written += rows;
    this.unitRows += rows;
    this.args.emit({
      type: "rows_read",
      table: this.args.table,
      rows: this.written,
      windowsDone: this.windowsDone,
      windowsTotal: this.args.plan.windows?.count,
    });
  }

  /** Commits the unit in flight with its run-log record; `window` names the window it finished. */
  async commit(window?: { readonly range: CursorRange; readonly ref: WindowRef }): Promise<void> {
    const unit = this.unit;
    if (!unit) return;
    // The state this commit records, taken before anything is awaited: the next window's read
    // begins while a window commits (loadAll), and a table function changes `ctx.state` in place.
    const state = JSON.stringify(this.state ?? null);
    const { plan, schedule, target, position } = this.args;
    if (schedule.rebuild && !this.columns && !this.args.targetColumns) {
      // Nothing was read and no columns are known: there is no table to build. A logged table
      // being started over still records that its position is gone.
      await unit.abort();
      this.unit = undefined;
      if (this.args.logged) {
        await this.onTarget("committing", () =>
          appendRunLogRecord(target, plan.target, this.record("run", { cursor: null, rows: 0 })),
        );
      }
      return;
    }
    if (this.changesNothing(window, state)) {
      // A record repeating the last one would only clutter the log (a checkpoint that moved
      // nothing, the empty tail after the last checkpoint); this run's first record marks it.
      await unit.abort();
      this.unit = undefined;
      return;
    }
    if (window && (await this.committedBefore(unit, window.range.to ?? null))) return;
    const record = this.record("run", {
      state: JSON.parse(state) as Json,
      cursor: position.value,
      windowEnd: window?.range.to ?? null,
      rows: this.unitRows,
    });
    await this.onTarget("committing", async () => {
      await unit.appendRunLog(encodeRunLogRecord(record));
      crashPoint("write");
      await unit.commit();
      crashPoint("commit");
    });
    this.unit = undefined;
    this.unitsCommitted++;
    this.committedRows += this.unitRows;
    this.committedPosition = position.value;
    this.committedState = state;
    this.keyCheck?.reset();
    if (schedule.publish === "each-commit") await this.publish();
    if (window) this.windowsDone++;
    this.args.emit({
      type: "window_committed",
      table: this.args.table,
      window: window?.ref,
      range: window?.range ?? plan.range,
      rows: this.unitRows,
      totalRows: this.written,
      position: position.value,
    });
    this.unitRows = 0;
  }

  /**
   * A run executed twice (a queue job taken again after its worker died past a commit) must not
   * commit a window twice: where the target can tell inside the unit's transaction, a window this
   * run already committed is rolled back here and counted as done.
   */
  private async committedBefore(unit: CommitUnit, windowEnd: CursorValue | null): Promise<boolean> {
    const { target, runId, table, emit } = this.args;
    if (!target.capabilities.commitGuard) return false;
    if (!unit.runLogOfRun)
      throw new SqlloadError("SL406", `target of ${table} declares commitGuard but its commit units have no runLogOfRun()`, {
        table,
      });
    const read = unit.runLogOfRun.bind(unit);
    const rows = await this.onTarget("checking the run log of", () => read(runId));
    const done = rows.some((row, i) => {
      const record = decodeRunLogRow(row, i);
      return record.event === "run" && record.windowEnd !== undefined && cursorEquals(record.windowEnd, windowEnd);
    });
    if (!done) return false;
    await unit.abort();
    this.unit = undefined;
    this.unitRows = 0;
    // The window counts as committed: its keys may come again in the next one, as updates.
    this.keyCheck?.reset();
    this.windowsDone++;
    emit({
      type: "table_warning",
      table,
      message: `run ${runId} already committed the window ending ${windowEnd ? cursorToString(windowEnd) : "at the end"}: not committed again`,
    });
    return true;
  }

  /** A unit with no rows and no window, leaving state (`state`, as JSON) and position as this run's last commit did. */
  private changesNothing(window: unknown, state: string): boolean {
    return (
      this.unitsCommitted > 0 &&
      this.unitRows === 0 &&
      window === undefined &&
      !this.args.schedule.rebuild &&
      this.committedState === state &&
      cursorEquals(this.args.position.value, this.committedPosition)
    );
  }

  /**
   * Rolls back the unit in flight and forgets what it wrote and where it moved the position, so
   * the pass it began can be read again from the start (an unordered read that outgrew a commit).
   */
  async abandonUnit(): Promise<void> {
    const unit = this.unit;
    this.unit = undefined;
    if (unit) await this.onTarget("rolling back", () => unit.abort());
    this.written -= this.unitRows;
    this.unitRows = 0;
    this.args.position.reset(this.committedPosition);
    this.keyCheck?.reset();
  }

  /** After the last commit: a staged target publishing at the end of the run makes everything visible now. */
  async finish(): Promise<void> {
    if (this.args.schedule.publish === "end-of-run" && this.unitsCommitted > 0) await this.publish();
  }

  /** After a failure: the unit in flight rolls back, and a staged target drops what this run staged. */
  async abort(): Promise<void> {
    await this.unit?.abort().catch(() => {});
    this.unit = undefined;
    const { target, plan, emit, table } = this.args;
    if (target.capabilities.commitModel !== "staged") return;
    await target.discard?.(plan.target).catch((error) => {
      emit({ type: "table_warning", table, message: `could not drop what this run staged: ${(error as Error).message}` });
    });
  }

  /** The log and the data disagree: the data wins, and a visible record says so. */
  async reconcile(mismatch: NonNullable<LoggedStart["reconcile"]>): Promise<void> {
    const shown = (v: CursorValue | null) => (v ? cursorToString(v) : "none");
    const note = `logged cursor ${shown(mismatch.logged)} differs from the data's maximum ${shown(mismatch.data)}: the data wins and the logged state is dropped`;
    const record = this.record("reconcile", { state: null, cursor: mismatch.data, rows: 0, note });
    await this.onTarget("reconciling", () => appendRunLogRecord(this.args.target, this.args.plan.target, record));
    this.args.emit({ type: "table_reconciled", table: this.args.table, note });
  }

  /** The columns a build table is created with: the source's, else the first batch's, else the table's. */
  get knownColumns(): readonly Column[] | undefined {
    return this.args.filter.columnsOf(this.columns ?? this.args.targetColumns);
  }

  /** A record of a resumable reload's start or swap; its window commits are tagged `build` by `record`. */
  reloadRecord(
    phase: "start" | "swap",
    body: Pick<RunLogRecord, "cursor" | "rows"> & Partial<Pick<RunLogRecord, "windowEnd">>,
  ): RunLogRecord {
    return this.record("run", body, phase);
  }

  /** Every run-log record this table writes: a logged table's records always carry its state. */
  private record(
    event: RunLogEvent,
    body: Pick<RunLogRecord, "cursor" | "rows"> & Partial<Pick<RunLogRecord, "state" | "windowEnd" | "note">>,
    reloadPhase: "start" | "build" | "swap" = "build",
  ): RunLogRecord {
    const state = "state" in body ? body.state : this.state;
    const reload = this.args.plan.reloadBuild;
    return {
      runId: this.args.runId,
      table: this.args.table,
      at: new Date().toISOString(),
      event,
      ...(this.args.logged ? { state: state ?? null } : {}),
      cursor: body.cursor,
      ...(body.windowEnd !== undefined ? { windowEnd: body.windowEnd } : {}),
      rows: body.rows,
      ...(body.note ? { note: body.note } : {}),
      ...(reload && event === "run" ? { reload: { id: reload.id ?? this.args.runId, phase: reloadPhase } } : {}),
      ...(this.args.unblocked ? { unblocked: true as const } : {}),
    };
  }

  private async publish(): Promise<void> {
    const { target, plan, table } = this.args;
    const publish = target.publish;
    if (!publish) throw new SqlloadError("SL406", `staged target cannot publish ${table}: it has no publish()`, { table });
    await this.onTarget("publishing", () => publish.call(target, plan.target));
    this.args.emit({ type: "table_published", table, rows: this.written, position: this.args.position.value });
  }

  private async onTarget<T>(what: string, action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      throw asSqlloadError(error, "SL305", `${what} ${this.args.table} failed`, { table: this.args.table });
    }
  }
}
