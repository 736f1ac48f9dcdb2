import { defaultTargetCapabilities, type TargetCapabilities } from "../../connector/capabilities.js";
import type { Column } from "../../connector/logical-types.js";
import {
  batchFromRows,
  batchToRows,
  columnMaxCursor,
  cursorAt,
  heldBatch,
  type RecordBatch,
} from "../../connector/record-batch.js";
import type { CursorRange } from "../../connector/source.js";
import { formatTargetTable, RELOAD_BUILD_SUFFIX, type TargetTableRef } from "../../connector/table-ref.js";
import type {
  CommitUnit,
  CommitUnitOptions,
  RunLogReadOptions,
  TargetConnection,
  TargetTableInfo,
} from "../../connector/target.js";
import type { CursorKind } from "../../cursor/cursor-kind.js";
import type { CursorValue } from "../../cursor/cursor-value.js";
import { SqlloadError } from "../../errors/sqlload-error.js";
import type { RunLogRow } from "../../state/run-log.js";
import { inCursorRange } from "../range-filter.js";

type Row = Record<string, unknown>;

interface Table {
  columns: readonly Column[];
  rows: Row[];
}

/** What one commit unit did, applied to the tables only at its commit (or, staged, at publish). */
interface UnitChanges {
  readonly name: string;
  readonly options: CommitUnitOptions;
  readonly deletes: { range: CursorRange; includeNulls: boolean }[];
  readonly writes: RecordBatch[];
  readonly log: RunLogRow[];
}

/** A failure to inject: the n-th (1-based) call of an operation throws. */
export interface InjectedFailure {
  /** `record`: on a target declaring `replaceRecordAfterSwap`, between a replace's swap and its run-log record. */
  readonly op: "write" | "commit" | "begin" | "publish" | "swap" | "record";
  readonly nth: number;
  readonly error?: Error;
}

/**
 * A target held in memory, for the runner's tests: each commit unit's changes land together at
 * `commit` (transactional) or wait in staging for `publish` (staged), so a test sees exactly what
 * a crash-free warehouse would. Not a connector: no types beyond what batches carry, no SQL.
 */
export class MemoryTarget implements TargetConnection {
  readonly capabilities: TargetCapabilities;
  readonly tables = new Map<string, Table>();
  readonly runLog: RunLogRow[] = [];
  /** Committed units of a staged target, not yet published. */
  readonly staged: UnitChanges[] = [];
  readonly calls: Record<InjectedFailure["op"], number> = { write: 0, commit: 0, begin: 0, publish: 0, swap: 0, record: 0 };
  readonly locked = new Set<string>();
  publish?: (ref: TargetTableRef) => Promise<void>;
  discard?: (ref: TargetTableRef) => Promise<void>;
  lockTable?: (ref: TargetTableRef) => Promise<{ release(): Promise<void> }>;
  reloadBuildTable?: (ref: TargetTableRef) => TargetTableRef;
  swapReloadBuild?: (ref: TargetTableRef, row: RunLogRow) => Promise<void>;
  dropReloadBuild?: (ref: TargetTableRef) => Promise<void>;
  failures: InjectedFailure[] = [];
  /** Every range a unit was asked to delete, in order. */
  readonly deleted: { readonly range: CursorRange; readonly includeNulls: boolean }[] = [];
  /** How many rows each `readRunLog` returned. */
  readonly runLogReads: number[] = [];

  constructor(capabilities: Partial<TargetCapabilities> = {}) {
    this.capabilities = { ...defaultTargetCapabilities, ...capabilities };
    if (this.capabilities.commitModel === "staged") {
      this.publish = async (ref) => {
        this.count("publish");
        const name = formatTargetTable(ref);
        for (const unit of this.staged.filter((u) => u.name === name)) this.apply(unit);
        this.dropStaged(name);
      };
      this.discard = async (ref) => this.dropStaged(formatTargetTable(ref));
    }
    if (this.capabilities.resumableReload) {
      const build = (ref: TargetTableRef) => ({ schema: ref.schema, name: `${ref.name}${RELOAD_BUILD_SUFFIX}` });
      this.reloadBuildTable = build;
      this.swapReloadBuild = async (ref, row) => {
        this.count("swap");
        const built = this.tables.get(formatTargetTable(build(ref)));
        if (built) {
          this.tables.set(formatTargetTable(ref), built);
          this.tables.delete(formatTargetTable(build(ref)));
        }
        this.runLog.push(row);
      };
      this.dropReloadBuild = async (ref) => void this.tables.delete(formatTargetTable(build(ref)));
    }
    if (this.capabilities.locking) {
      this.lockTable = async (ref) => {
        const name = formatTargetTable(ref);
        if (this.locked.has(name)) throw new SqlloadError("SL306", `${name} is locked by another run`, { retryable: true });
        this.locked.add(name);
        return { release: async () => void this.locked.delete(name) };
      };
    }
  }

  /** The rows of a table as objects, in the order they landed. */
  rows(ref: TargetTableRef): Row[] {
    return this.tables.get(formatTargetTable(ref))?.rows ?? [];
  }

  async describeTable(ref: TargetTableRef): Promise<TargetTableInfo | null> {
    const table = this.tables.get(formatTargetTable(ref));
    return table ? { columns: table.columns } : null;
  }

  async maxCursor(ref: TargetTableRef, column: string, _kind: CursorKind): Promise<CursorValue | null> {
    const table = this.tables.get(formatTargetTable(ref));
    if (!table || table.rows.length === 0) return null;
    const batch = batchFromRows(table.columns, table.rows);
    return columnMaxCursor(
      batch,
      table.columns.findIndex((c) => c.name === column),
    );
  }

  async ensureTable(ref: TargetTableRef, columns: readonly Column[]): Promise<readonly Column[]> {
    const name = formatTargetTable(ref);
    const table = this.tables.get(name);
    if (!table) {
      this.tables.set(name, { columns: [...columns], rows: [] });
      return columns;
    }
    for (const column of columns) {
      const found = table.columns.find((t) => t.name === column.name);
      if (found && found.type.kind !== column.type.kind) {
        throw new SqlloadError(
          "SL302",
          `table ${name} column "${column.name}" changed type from ${found.type.kind} to ${column.type.kind}`,
          {
            table: name,
          },
        );
      }
    }
    const added = columns.filter((c) => !table.columns.some((t) => t.name === c.name));
    table.columns = [...table.columns, ...added];
    return table.columns;
  }

  async begin(ref: TargetTableRef, options: CommitUnitOptions): Promise<CommitUnit> {
    this.count("begin");
    const changes: UnitChanges = { name: formatTargetTable(ref), options, deletes: [], writes: [], log: [] };
    const logName = options.runLogTable ? formatTargetTable(options.runLogTable) : changes.name;
    let open = true;
    const live = () => {
      if (!open) throw new Error("unit already ended");
    };
    return {
      deleteRange: async (range, opts) => {
        live();
        const deletion = { range, includeNulls: opts?.includeNulls === true };
        changes.deletes.push(deletion);
        this.deleted.push(deletion);
      },
      write: async (batch) => {
        live();
        this.count("write");
        changes.writes.push(heldBatch(batch));
      },
      appendRunLog: async (row) => {
        live();
        changes.log.push(row);
      },
      runLogOfRun: async (runId) => this.runLog.filter((r) => r.table === logName && r.runId === runId),
      commit: async () => {
        live();
        this.count("commit");
        open = false;
        const onlyLog = changes.writes.length === 0 && changes.deletes.length === 0 && options.strategy !== "replace";
        if (options.recordWithData) this.replaceInPlace(changes);
        else if (options.strategy === "replace" && this.capabilities.replaceRecordAfterSwap) {
          // The swap is DDL outside any transaction: its rows land, then the records in a commit of their own.
          this.apply({ ...changes, log: [] });
          this.count("record");
          this.runLog.push(...changes.log);
        } else if (this.capabilities.commitModel === "staged" && !onlyLog) this.staged.push(changes);
        else this.apply(changes);
      },
      abort: async () => {
        open = false;
      },
    };
  }

  async readRunLog(ref: TargetTableRef, options?: RunLogReadOptions): Promise<readonly RunLogRow[]> {
    const name = formatTargetTable(ref);
    const rows = this.runLog.filter((r) => r.table === name);
    const read = options?.last === undefined ? rows : rows.slice(-options.last);
    this.runLogReads.push(read.length);
    return read;
  }

  async close(): Promise<void> {}

  private count(op: InjectedFailure["op"]): void {
    this.calls[op]++;
    const failure = this.failures.find((f) => f.op === op && f.nth === this.calls[op]);
    if (failure) throw failure.error ?? new Error(`injected ${op} failure #${failure.nth}`);
  }

  private dropStaged(name: string): void {
    for (let i = this.staged.length - 1; i >= 0; i--) if (this.staged[i]!.name === name) this.staged.splice(i, 1);
  }

  /**
   * `recordWithData`: every row of the live table is replaced by the unit's, with its records, in
   * one commit. Core must have evolved the table first, so the unit's columns are the table's.
   */
  private replaceInPlace(unit: UnitChanges): void {
    if (!this.capabilities.replaceRecordAfterSwap) throw new Error("recordWithData asked of a target that swaps with its record");
    const table = this.tables.get(unit.name);
    const names = (columns: readonly Column[]) => columns.map((c) => c.name).join(",");
    if (!table || names(table.columns) !== names(unit.options.columns)) {
      throw new Error(`recordWithData unit of ${unit.name} begun with columns the live table does not have`);
    }
    table.rows = [];
    for (const batch of unit.writes) for (const row of batchToRows(batch)) this.land(table, row, unit.options);
    this.runLog.push(...unit.log);
  }

  private apply(unit: UnitChanges): void {
    const { options } = unit;
    const existing = this.tables.get(unit.name);
    if (options.strategy === "replace" || existing || unit.writes.length > 0) {
      const table: Table =
        options.strategy === "replace"
          ? { columns: options.columns, rows: [] }
          : (existing ?? { columns: options.columns, rows: [] });
      const cursor = options.cursor?.column;
      for (const { range, includeNulls } of unit.deletes) {
        if (!cursor) continue;
        const batch = batchFromRows(table.columns, table.rows);
        const index = table.columns.findIndex((c) => c.name === cursor);
        table.rows = table.rows.filter((_, r) => {
          const value = cursorAt(batch, index, r);
          return !(value === null ? includeNulls : inCursorRange(value, range));
        });
      }
      for (const batch of unit.writes) {
        for (const row of batchToRows(batch)) this.land(table, row, options);
      }
      this.tables.set(unit.name, table);
    }
    this.runLog.push(...unit.log);
  }

  private land(table: Table, row: Row, options: CommitUnitOptions): void {
    const key = options.strategy === "merge" ? options.primaryKey : undefined;
    const full = Object.fromEntries(table.columns.map((c) => [c.name, row[c.name] ?? null]));
    if (key) {
      const same = table.rows.findIndex((r) => key.every((k) => r[k] === full[k]));
      if (same >= 0) {
        table.rows[same] = full;
        return;
      }
    }
    table.rows.push(full);
  }
}
