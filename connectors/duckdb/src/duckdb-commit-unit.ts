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
const STAGE_TABLE = `temp.main.${quoteIdent(STAGE)}`;
/** The stage's column numbering each row's batch: of two rows with one key, the later batch's wins. */
const BATCH_NUMBER = "__sqlload_batch";

/**
 * Staged rows are merged into the table once this many rows, or bytes (as `measureBatch` counts
 * them), wait. Each merge scans the whole table for the keys it replaces (it has no index, see
 * `stageBatch`): merged a batch at a time, a load of 1M rows scanned it 244 times, and its
 * statements kept the unit waiting on DuckDB for half its time. The bytes bound the stage's memory
 * for wide rows. DuckDB keeps what a commit stages until the commit, deleted from the stage or not,
 * spilling past `memory_limit`; so a merge needs more of it than an append (a limit of 16 MB, which
 * a batch at a time took, no longer does).
 */
const MERGE_ROWS = 1 << 18;
const MERGE_BYTES = 32 << 20;

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
  /** A merge's stage: whether it was created, its appender while rows go in, what waits in it. */
  private readonly stage: {
    created: boolean;
    appender?: TableAppender | undefined;
    batches: number;
    rows: number;
    bytes: number;
  } = {
    created: false,
    batches: 0,
    rows: 0,
    bytes: 0,
  };
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
    if (this.options.strategy === "merge") return this.stageBatch(batch, measure.bytes);
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
    await this.mergeStaged();
  }

  /** Closes the open appender, which puts its rows in the transaction (and reports a failure to flush them). */
  private async flushAppender(): Promise<void> {
    const appender = this.appender;
    if (!appender) return;
    this.appender = undefined;
    await this.guard(async () => appender.close());
  }

  /**
   * Upserts on the primary key, in the unit's transaction: batches go to a staging table, numbered,
   * and `mergeStaged` replaces their keys in the table with them a few hundred thousand rows at a
   * time, and before anything else that must see the table's rows. No key constraint is declared on
   * the table (DuckDB's indexes slow every append, and the merge itself keeps keys unique).
   */
  private async stageBatch(batch: RecordBatch, bytes: number): Promise<void> {
    const columns = [...this.columnNames(), BATCH_NUMBER];
    // Refused before any row is staged.
    this.mergeKeys();
    const stage = this.stage;
    if (!stage.appender) {
      if (!stage.created) {
        await this.run(
          `CREATE TEMP TABLE ${quoteIdent(STAGE)} AS SELECT *, 0::INTEGER AS ${quoteIdent(BATCH_NUMBER)} FROM ${this.table} LIMIT 0`,
        );
        stage.created = true;
      }
      stage.appender = await this.guard(() =>
        TableAppender.open(this.connection, { catalog: "temp", schema: "main", name: STAGE, columns, label: this.label }),
      );
    }
    const appender = stage.appender;
    await this.guard(async () => {
      try {
        appender.append(numbered(batch, ++stage.batches), bytes);
      } catch (error) {
        appender.discard();
        stage.appender = undefined;
        throw error;
      }
    });
    stage.rows += batch.length;
    stage.bytes += bytes;
    if (stage.rows >= MERGE_ROWS || stage.bytes >= MERGE_BYTES) await this.mergeStaged();
  }

  /** The primary key's columns as the table names them, quoted. */
  private mergeKeys(): string[] {
    const keys = (this.options.primaryKey ?? []).map((k) => quoteIdent(this.column(k, "SL208").name));
    if (keys.length === 0) throw new SqlloadError("SL108", `merge into ${this.label} needs a primary key`);
    return keys;
  }

  /**
   * Replaces the keys of the staged rows in the table with them: a key twice in one batch is an
   * error, a key in several batches takes its row from the last of them.
   */
  private async mergeStaged(): Promise<void> {
    const stage = this.stage;
    const appender = stage.appender;
    if (!appender) return;
    stage.appender = undefined;
    stage.rows = 0;
    stage.bytes = 0;
    await this.guard(async () => appender.close());
    const keys = this.mergeKeys();
    const batch = quoteIdent(BATCH_NUMBER);
    // A key staged more than once, and whether each time in another batch: false (a key twice in
    // one batch, an error) sorts before true (an update, the later batch's row kept).
    const repeated = await this.guard(async () =>
      (
        await this.connection.runAndReadAll(
          `SELECT ${keys.join(", ")}, count(DISTINCT ${batch}) = count(*) FROM ${STAGE_TABLE} GROUP BY ${keys.join(", ")} HAVING count(*) > 1 ORDER BY ${keys.length + 1} LIMIT 1`,
        )
      ).getRowsJS(),
    );
    const first = repeated[0];
    if (first && first[keys.length] === false) {
      // Worded like core's own key check, which usually catches this first.
      const shown = (this.options.primaryKey ?? []).map((k, i) => `${k} = ${shownKey(first[i])}`).join(", ");
      throw new SqlloadError("SL301", `table ${this.label}: primary key (${shown}) appears more than once in one batch`, {
        table: this.label,
      });
    }
    const match = keys.map((k) => `t.${k} IS NOT DISTINCT FROM s.${k}`).join(" AND ");
    const latest = first ? ` QUALIFY row_number() OVER (PARTITION BY ${keys.join(", ")} ORDER BY ${batch} DESC) = 1` : "";
    await this.guard(() =>
      this.connection.run(
        [
          `DELETE FROM ${this.table} AS t USING ${STAGE_TABLE} AS s WHERE ${match}`,
          `INSERT INTO ${this.table} BY NAME SELECT * EXCLUDE (${batch}) FROM ${STAGE_TABLE}${latest}`,
          `DELETE FROM ${STAGE_TABLE}`,
        ].join(";\n"),
      ),
    );
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
    this.stage.appender?.discard();
    this.stage.appender = undefined;
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

/** A key's part as DuckDB gave it back, for an error: a timestamp as ISO 8601, not as `Date` prints itself. */
function shownKey(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/** The batch with its number in the stage's BATCH_NUMBER column. */
function numbered(batch: RecordBatch, number: number): RecordBatch {
  return {
    schema: [...batch.schema, { name: BATCH_NUMBER, type: { kind: "int32" }, nullable: false }],
    length: batch.length,
    columns: [...batch.columns, { values: new Int32Array(batch.length).fill(number) }],
  };
}
