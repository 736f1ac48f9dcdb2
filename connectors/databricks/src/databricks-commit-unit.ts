import { randomUUID } from "node:crypto";
import {
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type CursorRange,
  formatTargetTable,
  heldBatch,
  isNull,
  type RecordBatch,
  type RunLogRow,
  rangePredicate,
  SqlloadError,
  type TargetTableRef,
} from "@sqlload/core";
import { VolumeLoad } from "./databricks-bulk-load.js";
import { Parameters, qualifiedTable } from "./databricks-dialect.js";
import { rangeDialect } from "./databricks-range.js";
import { insertRunLogSql } from "./databricks-run-log.js";
import type { DatabricksSession, Params } from "./databricks-session.js";
import {
  atomicBlockSql,
  createOrReplaceSql,
  createTableSql,
  deleteWhereSql,
  dropTableSql,
  insertSelectSql,
  insertValuesSql,
  mergeSql,
  replaceWhereSql,
  SEQUENCE_COLUMN,
} from "./databricks-statements.js";
import { parameterSql, parameterText } from "./databricks-types.js";

/** Parameters per INSERT statement: small enough for any warehouse's statement limits. */
const MAX_PARAMETERS_PER_INSERT = 2000;

export interface UnitContext {
  readonly session: DatabricksSession;
  readonly catalog: string;
  /** The unit lands as one `BEGIN ATOMIC` block (else: data first, then the run log). */
  readonly atomic: boolean;
  /** Creates the schema's run log when it is missing (DDL cannot run inside the block). */
  ensureRunLog(schema: string): Promise<void>;
  /** Creates the schema when it is missing (a `replace` may build a table in a schema not made yet). */
  ensureSchema(schema: string): Promise<void>;
  wrap(error: unknown, action: string): SqlloadError;
  /** Set when the target has a `volume`: units of `threshold` rows or more load through it. */
  readonly bulk?: BulkPath | undefined;
}

export interface BulkPath {
  readonly threshold: number;
  /** The table's folder in the volume. */
  folder(ref: TargetTableRef): string;
  /** Removes what dead runs left in the table's folder, once per connection and table. */
  sweep(ref: TargetTableRef): Promise<void>;
}

interface Statement {
  readonly sql: string;
  readonly params: Params;
}

/**
 * One commit on Databricks. Writes go to a build table of the unit's own (a Delta table in the
 * same schema that no reader looks at), so nothing shows before `commit`; `commit` then moves
 * them in one statement: under the atomic model one `BEGIN ATOMIC … END` with the range delete,
 * the insert or merge, and the run-log records; otherwise the data in one Delta commit
 * (`REPLACE WHERE`, `MERGE`, or an insert) and the run-log records right after it. `replace`
 * is `CREATE OR REPLACE TABLE … AS SELECT` from the build table, then the records; a `replace`
 * asked for `recordWithData` is instead a delete of every row plus the insert, in the atomic block.
 *
 * With a volume (the bulk path), rows are held back until the unit has `threshold` of them:
 * a unit that stays smaller is inserted with parameterized INSERTs at commit; a larger one is
 * staged as Parquet, uploaded and loaded into the build table with COPY INTO at commit, and its
 * files are removed from the volume when the unit ends, committed or not.
 */
export class DatabricksCommitUnit implements CommitUnit {
  private readonly ranges: { range: CursorRange; includeNulls: boolean }[] = [];
  private readonly logs: RunLogRow[] = [];
  private build: { name: string; columns: readonly Column[] } | undefined;
  private rowsWritten = 0;
  private done = false;
  /** Batches held back on the bulk path until the unit reaches the threshold or commits. */
  private readonly pending: RecordBatch[] = [];
  private volumeLoad: VolumeLoad | undefined;

  constructor(
    private readonly context: UnitContext,
    private readonly ref: TargetTableRef,
    private readonly options: CommitUnitOptions,
  ) {}

  private get table(): string {
    return qualifiedTable(this.context.catalog, this.ref);
  }

  async deleteRange(range: CursorRange, options?: { readonly includeNulls?: boolean }): Promise<void> {
    if (!this.options.cursor) throw new SqlloadError("SL900", `deleteRange on ${formatTargetTable(this.ref)} without a cursor`);
    this.ranges.push({ range, includeNulls: options?.includeNulls === true });
  }

  async write(batch: RecordBatch): Promise<void> {
    if (batch.length === 0) return;
    const build = await this.ensureBuild(batch.schema);
    this.columnsOf(batch, build);
    const bulk = this.context.bulk;
    if (!bulk) {
      await this.insertRows(batch, build);
      return;
    }
    if (this.volumeLoad) {
      await this.guard("staging rows of", () => (this.volumeLoad as VolumeLoad).append(batch));
      return;
    }
    // Written at a later call: the batch's columns are read now, while they are the unit's to read.
    this.pending.push(heldBatch(batch));
    if (this.pending.reduce((n, b) => n + b.length, 0) < bulk.threshold) return;
    await bulk.sweep(this.ref);
    // Every build column, in the storage the batches hold it in (a column no batch had yet: the table's type).
    const given = new Map(this.pending.flatMap((p) => p.schema).map((c) => [c.name, c]));
    const schema = build.columns.map((c) => given.get(c.name) ?? c);
    const load = await this.guard("staging rows of", () => VolumeLoad.open(this.context.session, bulk.folder(this.ref), schema));
    this.volumeLoad = load;
    for (const held of this.pending.splice(0)) await this.guard("staging rows of", () => load.append(held));
  }

  /** Parameterized multi-row INSERTs of a batch into the build table. */
  private async insertRows(batch: RecordBatch, build: { name: string; columns: readonly Column[] }): Promise<void> {
    const columns = this.columnsOf(batch, build);
    const targets = [
      ...columns.map((c) => c.column),
      { name: SEQUENCE_COLUMN, type: { kind: "int64" }, nullable: false } as Column,
    ];
    const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS_PER_INSERT / Math.max(1, columns.length)));
    for (let start = 0; start < batch.length; start += perStatement) {
      const params = new Parameters();
      const rows: string[][] = [];
      for (let row = start; row < Math.min(batch.length, start + perStatement); row++) {
        const cells = columns.map(({ index, type }) => {
          const vector = batch.columns[index] as RecordBatch["columns"][number];
          if (isNull(vector, row)) return "NULL";
          return parameterSql(type, params.add(parameterText(type, (vector.values as ArrayLike<unknown>)[row])));
        });
        rows.push([...cells, String(this.rowsWritten + row)]);
      }
      await this.run({ sql: insertValuesSql(build.name, targets, rows), params: params.values }, "writing");
    }
    this.rowsWritten += batch.length;
  }

  /**
   * The build table's column for each column of a batch, and the batch column's own type (its
   * values are in that type's storage; the SQL casts them to the column's).
   */
  private columnsOf(
    batch: RecordBatch,
    build: { columns: readonly Column[] },
  ): { index: number; column: Column; type: Column["type"] }[] {
    const known = new Map(build.columns.map((c) => [c.name, c]));
    return batch.schema.map((c, index) => {
      const column = known.get(c.name);
      if (!column) {
        throw new SqlloadError("SL209", `${formatTargetTable(this.ref)} has no column ${c.name}`, {
          table: formatTargetTable(this.ref),
        });
      }
      return { index, column, type: c.type };
    });
  }

  /** Moves the rows held back or staged into the build table, before the commit statements. */
  private async flushWrites(): Promise<void> {
    const build = this.build;
    if (!build) return;
    const load = this.volumeLoad;
    if (load) await this.guard("loading the staged files into", () => load.loadInto(build.name));
    for (const batch of this.pending.splice(0)) await this.insertRows(batch, build);
  }

  async appendRunLog(row: RunLogRow): Promise<void> {
    this.logs.push(row);
  }

  async commit(): Promise<void> {
    this.done = true;
    try {
      await this.flushWrites();
      if (this.options.strategy === "replace" && !this.options.recordWithData) await this.commitReplace();
      else await this.commitData();
    } finally {
      await this.cleanUp();
    }
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.cleanUp();
  }

  private async cleanUp(): Promise<void> {
    this.pending.length = 0;
    const load = this.volumeLoad;
    this.volumeLoad = undefined;
    await load?.removeFiles();
    await this.dropBuild();
  }

  private async commitReplace(): Promise<void> {
    const columns = this.build?.columns ?? this.options.columns;
    if (columns.length > 0) {
      const build = await this.ensureBuild(columns);
      await this.run(
        { sql: createOrReplaceSql(this.table, build.columns, build.name, this.context.atomic), params: {} },
        "replacing",
      );
    }
    await this.commitLogs();
  }

  private async commitData(): Promise<void> {
    const atomic = this.context.atomic;
    const shared = new Parameters();
    const statement = (make: (params: Parameters) => string): Statement => {
      const params = atomic ? shared : new Parameters();
      const sql = make(params);
      return { sql, params: params.values };
    };
    const columns = this.build?.columns ?? [];
    const predicate = (params: Parameters) => {
      const cursor = this.options.cursor as NonNullable<CommitUnitOptions["cursor"]>;
      const dialect = rangeDialect(params, this.options.columns.find((c) => c.name === cursor.column)?.type);
      return this.ranges
        .map((r) =>
          rangePredicate(dialect, { column: cursor.column, kind: cursor.kind, range: r.range, includeNulls: r.includeNulls }),
        )
        .join(" OR ");
    };
    const data: Statement[] = [];
    const build = this.build;
    const merging = this.options.strategy === "merge";
    if (merging && build) {
      const keys = this.options.primaryKey ?? [];
      if (keys.length === 0) throw new SqlloadError("SL108", `merge into ${formatTargetTable(this.ref)} needs a primary key`);
      if (this.ranges.length > 0) data.push(statement((p) => deleteWhereSql(this.table, predicate(p))));
      data.push(statement(() => mergeSql(this.table, columns, keys, build.name)));
    } else if (this.ranges.length > 0 && build && !atomic) {
      data.push(statement((p) => replaceWhereSql(this.table, predicate(p), this.options.columns, build.name)));
    } else {
      // A replace asked for `recordWithData`: every row goes, in the block that inserts the new ones and logs.
      if (this.options.recordWithData) data.push(statement(() => deleteWhereSql(this.table, "TRUE")));
      if (this.ranges.length > 0) data.push(statement((p) => deleteWhereSql(this.table, predicate(p))));
      if (build) data.push(statement(() => insertSelectSql(this.table, columns, build.name)));
    }
    if (this.logs.length > 0) await this.context.ensureRunLog(this.ref.schema);
    const log =
      this.logs.length > 0
        ? [statement((p) => insertRunLogSql(this.context.catalog, this.ref, formatTargetTable(this.ref), this.logs, p))]
        : [];
    if (atomic) {
      const all = [...data, ...log];
      if (all.length === 0) return;
      await this.run({ sql: atomicBlockSql(all.map((s) => s.sql)), params: shared.values }, "committing");
      return;
    }
    for (const s of data) await this.run(s, "committing");
    for (const s of log) await this.run(s, "logging the commit of");
  }

  private async commitLogs(): Promise<void> {
    if (this.logs.length === 0) return;
    await this.context.ensureRunLog(this.ref.schema);
    const params = new Parameters();
    const sql = insertRunLogSql(this.context.catalog, this.ref, formatTargetTable(this.ref), this.logs, params);
    await this.run({ sql: this.context.atomic ? atomicBlockSql([sql]) : sql, params: params.values }, "logging the commit of");
  }

  /** The unit's build table: the target's columns (or, for a table not known yet, the first batch's), plus the write order. */
  private async ensureBuild(fallback: readonly Column[]): Promise<{ name: string; columns: readonly Column[] }> {
    if (this.build) return this.build;
    const columns = this.options.columns.length > 0 ? this.options.columns : fallback;
    const name = qualifiedTable(this.context.catalog, {
      schema: this.ref.schema,
      name: `_sqlload_build_${randomUUID().replaceAll("-", "")}`,
    });
    const nullable = columns.map((c) => ({ ...c, nullable: true }));
    await this.context.ensureSchema(this.ref.schema);
    await this.run(
      {
        sql: createTableSql(name, [...nullable, { name: SEQUENCE_COLUMN, type: { kind: "int64" }, nullable: false }], false),
        params: {},
      },
      "staging",
    );
    this.build = { name, columns };
    return this.build;
  }

  private async dropBuild(): Promise<void> {
    const build = this.build;
    this.build = undefined;
    if (build) await this.context.session.execute(dropTableSql(build.name)).catch(() => undefined);
  }

  private async guard<T>(action: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof SqlloadError) throw error;
      throw this.context.wrap(error, `${action} ${formatTargetTable(this.ref)}`);
    }
  }

  private async run(statement: Statement, action: string): Promise<void> {
    try {
      await this.context.session.execute(statement.sql, statement.params);
    } catch (error) {
      throw this.context.wrap(error, `${action} ${formatTargetTable(this.ref)}`);
    }
  }
}
