import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import {
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type CursorRange,
  type FileScan,
  type FileScanWritten,
  formatTargetTable,
  RELOAD_BUILD_SUFFIX,
  type RecordBatch,
  type RunLogRow,
  SqlloadError,
  type TargetTableRef,
} from "@sqlload/core";
import { TableAppender } from "./duckdb-appender.js";
import { type RelationColumnType, relationTypes } from "./duckdb-catalog.js";
import { DuckDBTypeId } from "./duckdb-client.js";
import type { DuckDBDatabase } from "./duckdb-database.js";
import { duckdbTypeSql, findColumn, qualifiedName, quoteIdent } from "./duckdb-dialect.js";
import { ingestScan } from "./duckdb-file-scan.js";
import { duckdbRange } from "./duckdb-range.js";
import { createRunLogTable, insertRunLogSql, selectRunLog } from "./duckdb-run-log.js";
import { StagedMerge } from "./duckdb-staged-merge.js";
import { runStatement, writingTable } from "./duckdb-statement.js";
import { type BatchMeasure, measureBatch } from "./duckdb-write-memory.js";
import { committedDurably, wrapDuckDBError } from "./errors.js";

/** Where `replace` builds the new table before `commit` swaps it in. */
export function buildTableName(name: string): string {
  return `${name}__sqlload_new`;
}

/** Where a resumable reload of a table is built, across runs, while the table stays live. */
export function reloadBuildName(name: string): string {
  return `${name}${RELOAD_BUILD_SUFFIX}`;
}

/** A merge's rows wait here (a temporary table of the unit's connection) before they replace their keys. */
const STAGE = "__sqlload_stage";

/**
 * Opens a unit: one DuckDB transaction on a connection of its own. `replace` first drops a build
 * table an earlier run may have left, then creates a fresh one inside the transaction (from the
 * unit's columns, or from the first batch when none are known yet), so neither a reader nor a
 * failed unit ever sees a half-built table. A unit may begin on a table that does not exist yet
 * (an empty window of a table whose columns only its rows can tell): it then only logs.
 */
export async function beginCommitUnit(db: DuckDBDatabase, ref: TargetTableRef, options: CommitUnitOptions): Promise<CommitUnit> {
  const label = formatTargetTable(ref);
  const replace = options.strategy === "replace";
  const writeName = replace ? buildTableName(ref.name) : ref.name;
  const connection = await db.connect().catch((error: unknown) => {
    throw wrapDuckDBError(error, "target", `cannot start a commit on ${label}`, label);
  });
  try {
    // One call: DuckDB runs a text of several statements in order, and stops at the first that fails.
    const setup = [
      `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(ref.schema)}`,
      createRunLogTable((options.runLogTable ?? ref).schema),
      ...(replace ? [`DROP TABLE IF EXISTS ${qualifiedName(ref.schema, writeName)}`] : []),
      "BEGIN TRANSACTION",
    ];
    await db.serialize(() => connection.run(setup.join(";\n")));
    const unit = new DuckDBCommitUnit(db, connection, ref, options, writeName, label);
    if (replace) {
      if (options.columns.length > 0) await unit.createBuildTable(options.columns);
    } else {
      await unit.describe();
    }
    return unit;
  } catch (error) {
    await connection.run("ROLLBACK").catch(() => undefined);
    db.disconnect(connection);
    throw wrapDuckDBError(error, "target", `cannot start a commit on ${label}`, label);
  }
}

class DuckDBCommitUnit implements CommitUnit {
  private open = true;
  /** A merge's batches, staged until they replace their keys' rows (duckdb-staged-merge.ts). */
  private merging: StagedMerge | undefined;
  /**
   * Run-log records appended but not yet sent: they go with COMMIT, in its call (one round trip
   * to DuckDB's thread fewer per unit), or before anything that reads the log.
   */
  private unsentLog: string[] = [];
  /** Open across the unit's writes to the table; closed before any statement that must see its rows. */
  private appender: TableAppender | undefined;
  /** The written table's columns in table order; null while it does not exist. */
  private columns: readonly RelationColumnType[] | null = null;
  private readonly table: string;

  constructor(
    private readonly db: DuckDBDatabase,
    private readonly connection: DuckDBConnection,
    private readonly ref: TargetTableRef,
    private readonly options: CommitUnitOptions,
    private readonly writeName: string,
    private readonly label: string,
  ) {
    this.table = qualifiedName(ref.schema, writeName);
  }

  async describe(): Promise<void> {
    this.columns = await relationTypes(this.connection, this.ref.schema, this.writeName);
  }

  async createBuildTable(columns: readonly Column[]): Promise<void> {
    const defs = columns.map((c) => `${quoteIdent(c.name)} ${duckdbTypeSql(c.type)}`).join(", ");
    await this.connection.run(`CREATE TABLE ${this.table} (${defs})`);
    await this.describe();
  }

  async deleteRange(range: CursorRange, options?: { readonly includeNulls?: boolean }): Promise<void> {
    const cursor = this.options.cursor;
    if (!cursor) throw new SqlloadError("SL900", `deleteRange on ${this.label}, which has no cursor column`);
    if (!this.columns) return;
    const column = this.column(cursor.column);
    const condition = duckdbRange({
      column: column.name,
      kind: cursor.kind,
      range,
      includeNulls: options?.includeNulls ?? false,
      withZone: column.type.typeId === DuckDBTypeId.TIMESTAMP_TZ,
    });
    await this.run(`DELETE FROM ${this.table} WHERE ${condition.sql}`, condition.values, condition.types);
  }

  async write(batch: RecordBatch): Promise<void> {
    if (batch.length === 0) return;
    this.check();
    if (!this.columns && this.options.strategy === "replace") await this.guard(() => this.createBuildTable(batch.schema));
    const measure = measureBatch(batch);
    await this.fitWriteMemory(measure);
    if (this.options.strategy === "merge") {
      const merging = (this.merging ??= this.startMerge());
      return this.guard(() => merging.write(batch, measure.bytes));
    }
    await this.guard(async () => {
      this.appender ??= await TableAppender.open(this.connection, {
        schema: this.ref.schema,
        name: this.writeName,
        columns: this.columnNames(),
        label: this.label,
      });
      try {
        this.appender.append(batch, measure.bytes);
      } catch (error) {
        this.appender.discard();
        this.appender = undefined;
        throw error;
      }
    });
  }

  /** Raises the file's memory_limit to what the table's rows need (duckdb-write-memory.ts). */
  private async fitWriteMemory(measure: BatchMeasure): Promise<void> {
    const memory = this.db.writeMemory;
    if (!memory) return;
    // The appender fills the columns a batch lacks (dropped from the source, or not selected) with NULLs.
    const columns = Math.max(measure.columns, this.columns?.length ?? 0);
    await this.guard(() => memory.fit(this.table, { ...measure, columns }));
  }

  async ingestFiles(scan: FileScan, columns: readonly string[]): Promise<FileScanWritten> {
    this.check();
    if (!this.columns && this.options.strategy === "replace") await this.guard(() => this.createBuildTable(this.options.columns));
    await this.settle();
    const names = columns.map((name) => this.column(name).name);
    const cursor = this.options.cursor && {
      column: this.column(this.options.cursor.column).name,
      kind: this.options.cursor.kind,
    };
    return this.guard(() => ingestScan(this.connection, this.table, scan, names, cursor));
  }

  /** Puts every row written so far in the table: the open appender's, and a merge's staged rows. */
  private async settle(): Promise<void> {
    await this.flushAppender();
    await this.merging?.settle();
  }

  /** Closes the open appender, which puts its rows in the transaction (and reports a failure to flush them). */
  private async flushAppender(): Promise<void> {
    const appender = this.appender;
    if (!appender) return;
    this.appender = undefined;
    await this.guard(async () => appender.close());
  }

  /**
   * Upserts on the primary key, in the unit's transaction (duckdb-staged-merge.ts). No key
   * constraint is declared on the table: DuckDB's indexes slow every append, and the merge itself
   * keeps keys unique.
   */
  private startMerge(): StagedMerge {
    const columns = this.columnNames();
    const keys = (this.options.primaryKey ?? []).map((k) => ({ column: this.column(k, "SL208").name, name: k }));
    return new StagedMerge(this.connection, { into: this.table, columns, keys, stage: STAGE, label: this.label });
  }

  /** The table whose run log this unit writes: a reload's build logs under the live table. */
  private get logRef(): TargetTableRef {
    return this.options.runLogTable ?? this.ref;
  }

  async appendRunLog(row: RunLogRow): Promise<void> {
    this.check();
    this.unsentLog.push(insertRunLogSql(this.logRef.schema, this.logRef.name, row));
  }

  async runLogOfRun(runId: string): Promise<readonly RunLogRow[]> {
    this.check();
    await this.sendLog();
    return this.guard(() => selectRunLog(this.connection, this.logRef.schema, this.logRef.name, { runId }));
  }

  private async sendLog(): Promise<void> {
    const statements = this.unsentLog;
    if (statements.length === 0) return;
    this.unsentLog = [];
    await this.guard(() => this.connection.run(statements.join(";\n")));
  }

  async commit(): Promise<void> {
    this.check();
    try {
      await this.settle();
      // One call, in order, stopping at the first failure (which the ROLLBACK below then undoes).
      const statements = this.unsentLog;
      this.unsentLog = [];
      if (this.options.strategy === "replace" && this.columns) {
        // Inside the transaction: readers see the old table until COMMIT, then the new one.
        statements.push(`DROP TABLE IF EXISTS ${qualifiedName(this.ref.schema, this.ref.name)}`);
        statements.push(`ALTER TABLE ${this.table} RENAME TO ${quoteIdent(this.ref.name)}`);
      }
      await this.connection.run([...statements, "COMMIT"].join(";\n"));
    } catch (error) {
      // Its rows and run-log record are in the file: the unit committed. The next statement on the
      // file fails, with a hint that says why.
      if (committedDurably(error)) return;
      await this.connection.run("ROLLBACK").catch(() => undefined);
      throw wrapDuckDBError(error, "target", `committing ${this.label} failed`, this.label);
    } finally {
      this.close();
    }
  }

  async abort(): Promise<void> {
    if (!this.open) return;
    this.appender?.discard();
    this.appender = undefined;
    this.merging?.discard();
    try {
      await this.connection.run("ROLLBACK");
    } catch {
      // A failed statement may have ended the transaction already; there is nothing left to undo.
    } finally {
      this.close();
    }
  }

  private close(): void {
    this.open = false;
    this.db.disconnect(this.connection);
  }

  private check(): void {
    if (!this.open) throw new SqlloadError("SL900", `the commit unit of ${this.label} was used after it ended`);
  }

  private column(name: string, code: "SL305" | "SL208" = "SL305"): RelationColumnType {
    const column = findColumn(this.columns ?? [], name);
    if (!column) throw new SqlloadError(code, `${this.label} has no column "${name}"`, { table: this.label });
    return column;
  }

  private columnNames(): string[] {
    if (!this.columns)
      throw new SqlloadError("SL305", `table ${this.label} does not exist`, { hint: "Create it with ensureTable first." });
    return this.columns.map((c) => c.name);
  }

  private async run(
    sql: string,
    values?: Record<string, DuckDBValue>,
    types?: Record<string, DuckDBType | undefined>,
  ): Promise<void> {
    this.check();
    await this.settle();
    await this.guard(() => runStatement(this.connection, sql, values, types));
  }

  private guard<T>(work: () => Promise<T>): Promise<T> {
    return writingTable(this.label, work);
  }
}
