import {
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type CursorKind,
  type CursorValue,
  defaultTargetCapabilities,
  type EnsureTableOptions,
  formatLogicalType,
  formatTargetTable,
  HeldTables,
  type PlanNoteContext,
  RUN_LOG_TABLE,
  type RunLogReadOptions,
  type RunLogRow,
  rangePredicate,
  SqlloadError,
  type TargetCapabilities,
  type TargetConnection,
  type TargetTableInfo,
  type TargetTableRef,
} from "@sqlload/core";
import {
  createTable,
  datasetCollation,
  deleteTable,
  ensureDataset,
  getTable,
  patchSchema,
  type TableMetadata,
  tablesStartingWith,
} from "./bigquery-catalog.js";
import { collationNotes } from "./bigquery-collation.js";
import { BigQueryCommitUnit } from "./bigquery-commit-unit.js";
import { type CursorColumnType, qualifiedTable, rangeDialect } from "./bigquery-dialect.js";
import type { BigQueryJobs } from "./bigquery-jobs.js";
import { tableLayout } from "./bigquery-layout.js";
import { acquireLock, DEFAULT_LOCK_TIMING, LOCK_FIELDS, LOCK_TABLE, type LockTiming } from "./bigquery-lock.js";
import { readMaximum } from "./bigquery-maximum.js";
import type { IntegerPartitionRange } from "./bigquery-partition-range.js";
import { RUN_LOG_FIELDS, selectRunLog } from "./bigquery-run-log.js";
import { auxPrefix } from "./bigquery-stage.js";
import { columnOf, fieldFits, fieldOf, typeSql } from "./bigquery-types.js";
import { bigqueryErrorKind, toBigQueryError } from "./errors.js";

export interface BigQueryTargetOptions {
  readonly location?: string | undefined;
  /** The dataset the target's default schema lands in, when it is not named like the schema. */
  readonly datasetFor?: ((schema: string) => string) | undefined;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  /** Partition new tables by the cursor: DAY on a date or timestamp, integer ranges on an integer (default true). */
  readonly partitionByCursor?: boolean | undefined;
  /** The ranges of a new table partitioned by an integer cursor (`partition_range`); chosen by sqlload otherwise. */
  readonly partitionRange?: IntegerPartitionRange | undefined;
  readonly lockTiming?: LockTiming | undefined;
  readonly flushBytes?: number | undefined;
}

/**
 * The BigQuery target: commit model `transactional`, each unit one multi-statement
 * transaction (see BigQueryCommitUnit). BigQuery aborts one of two transactions that change a
 * table at once, so units of one table run one at a time in this process, and `lockTable`
 * keeps other processes away.
 */
export class BigQueryTarget implements TargetConnection {
  /** What every connection declares; the connector declares the same before connecting. */
  static readonly capabilities: TargetCapabilities = {
    ...defaultTargetCapabilities,
    commitModel: "transactional",
    codePointText: true,
    locking: true,
    // `CREATE OR REPLACE TABLE … COPY` is DDL, which no transaction takes in.
    replaceRecordAfterSwap: true,
  };
  readonly capabilities: TargetCapabilities = BigQueryTarget.capabilities;
  private readonly datasets = new Set<string>();
  private readonly tableTurns = new Map<string, Promise<void>>();
  private readonly held = new HeldTables<TableMetadata>();

  constructor(
    readonly jobs: BigQueryJobs,
    private readonly options: BigQueryTargetOptions = {},
  ) {}

  private dataset(ref: TargetTableRef): string {
    return this.options.datasetFor?.(ref.schema) ?? ref.schema;
  }

  /** The table's metadata, shared by the requests of a load while this connection holds its lock (HeldTables). */
  private table(ref: TargetTableRef): Promise<TableMetadata | null> {
    const dataset = this.dataset(ref);
    return this.held.get(ref, () => getTable(this.jobs.client, dataset, ref.name));
  }

  describeTable(ref: TargetTableRef): Promise<TargetTableInfo | null> {
    return this.guard(ref, "reading the columns of", async () => {
      // A load's first look at the table: always from BigQuery.
      this.held.forget(ref);
      const table = await this.table(ref);
      return table ? { columns: (table.schema?.fields ?? []).map(columnOf) } : null;
    });
  }

  /**
   * The maximum, exact (text or integer microseconds, never a JS number), text by code point,
   * bounded below by the run log's last position when core passes it (see readMaximum).
   */
  maxCursor(
    ref: TargetTableRef,
    column: string,
    kind: CursorKind,
    options?: { readonly atOrAbove?: CursorValue | null | undefined },
  ): Promise<CursorValue | null> {
    return this.guard(ref, "reading the maximum of", async () => {
      const dataset = this.dataset(ref);
      const table = await this.table(ref);
      const field = table?.schema?.fields?.find((f) => f.name === column);
      if (!table || !field) return null;
      const at = { dataset, table: ref.name, label: formatTargetTable(ref) };
      return readMaximum(this.jobs, at, field, kind, options?.atOrAbove ?? null);
    });
  }

  /**
   * Creates the table (partitioned by a date or timestamp cursor, clustered on the primary key)
   * or adds the columns it lacks and relaxes REQUIRED ones the source now allows NULL in, after
   * every column was checked, so a changed type (SL302) alters nothing. This is DDL, outside any
   * unit: BigQuery allows no permanent-table DDL inside a transaction.
   */
  ensureTable(ref: TargetTableRef, columns: readonly Column[], options: EnsureTableOptions): Promise<readonly Column[]> {
    return this.guard(ref, "creating or evolving", async () => {
      const dataset = this.dataset(ref);
      await this.prepareDataset(dataset);
      const existing = await this.table(ref);
      if (!existing) {
        const layout = tableLayout(columns, {
          cursor: options.cursor,
          primaryKey: options.primaryKey,
          partition: this.options.partitionByCursor !== false,
          integerRange: this.options.partitionRange,
        });
        this.held.forget(ref);
        await createTable(this.jobs.client, dataset, ref.name, { ...layout, labels: this.options.labels });
      } else {
        const fields = [...(existing.schema?.fields ?? [])];
        let changed = false;
        for (const column of columns) {
          const wanted = fieldOf(column);
          const index = fields.findIndex((f) => f.name === column.name);
          const found = fields[index];
          if (!found) {
            fields.push({ ...wanted, mode: wanted.mode === "REPEATED" ? "REPEATED" : "NULLABLE" });
            changed = true;
          } else if (!fieldFits(found, wanted)) {
            throw new SqlloadError(
              "SL302",
              `table ${formatTargetTable(ref)} column "${found.name}" changed type from ${formatLogicalType(columnOf(found).type)} to ${formatLogicalType(column.type)} (the BigQuery column is ${typeSql(found)}, which cannot hold ${typeSql(wanted)} values)`,
              { table: formatTargetTable(ref) },
            );
          } else if (column.nullable && found.mode === "REQUIRED") {
            fields[index] = { ...found, mode: "NULLABLE" };
            changed = true;
          }
        }
        // Unchanged, the table is what was just read: no second request.
        if (!changed) return fields.map(columnOf);
        this.held.forget(ref);
        await patchSchema(this.jobs.client, dataset, ref.name, fields);
      }
      const after = await this.table(ref);
      return (after?.schema?.fields ?? []).map(columnOf);
    });
  }

  async begin(ref: TargetTableRef, options: CommitUnitOptions): Promise<CommitUnit> {
    const done = await this.takeTurn(ref);
    try {
      return await this.guard(ref, "starting a commit on", async () => {
        const dataset = this.dataset(ref);
        await this.prepareDataset(dataset);
        const swaps = options.strategy === "replace" && options.recordWithData !== true;
        const table = await this.table(ref);
        // The unit's commit puts a new table in its place: read it again after.
        if (swaps) this.held.forget(ref);
        const cursorField = options.cursor ? table?.schema?.fields?.find((f) => f.name === options.cursor?.column) : undefined;
        return new BigQueryCommitUnit(
          {
            jobs: this.jobs,
            dataset,
            ref,
            cursorType: swaps ? undefined : (cursorField?.type as CursorColumnType | undefined),
            replaced: swaps ? table : undefined,
            partition: this.options.partitionByCursor !== false,
            partitionRange: this.options.partitionRange,
            labels: this.options.labels ?? {},
            flushBytes: this.options.flushBytes,
            done,
          },
          options,
        );
      });
    } catch (error) {
      done();
      throw error;
    }
  }

  readRunLog(ref: TargetTableRef, options?: RunLogReadOptions): Promise<readonly RunLogRow[]> {
    return this.guard(ref, "reading the run log of", async () => {
      const dataset = this.dataset(ref);
      // A dataset this connection prepared (taking the table's lock does) has its log: no request to ask.
      if (!this.datasets.has(dataset) && !(await getTable(this.jobs.client, dataset, RUN_LOG_TABLE))) return [];
      try {
        return await selectRunLog(this.jobs, dataset, ref.name, options?.last);
      } catch (error) {
        // Deleted since (SPEC §11: safe): no log, and the dataset is prepared again before the next commit.
        if (bigqueryErrorKind(error) !== "missing_table") throw error;
        this.datasets.delete(dataset);
        return [];
      }
    });
  }

  /** Takes the table's lock row, then drops the stages and builds an earlier, killed run of it left. */
  async lockTable(ref: TargetTableRef): Promise<{ release(): Promise<void> }> {
    return this.guard(ref, "locking", async () => {
      const dataset = this.dataset(ref);
      await this.prepareDataset(dataset);
      const lock = await acquireLock(this.jobs, dataset, ref.name, this.options.lockTiming ?? DEFAULT_LOCK_TIMING);
      const release = async () => {
        this.held.release(ref);
        await lock.release();
      };
      try {
        const leftovers = [auxPrefix("stage", ref.name), auxPrefix("build", ref.name)];
        for (const name of await tablesStartingWith(this.jobs.client, dataset, leftovers)) {
          await deleteTable(this.jobs.client, dataset, name);
        }
      } catch (error) {
        await release().catch(() => undefined);
        throw error;
      }
      this.held.hold(ref);
      return { release };
    });
  }

  /**
   * Lines for `plan`: the collations set on the table or its dataset, and, where the run deletes
   * a range (delete_insert, not rebuilt), what that delete would scan, by BigQuery's dry run
   * (free; it bills nothing).
   */
  planNotes(ref: TargetTableRef, options: PlanNoteContext = {}): Promise<string[]> {
    return this.guard(ref, "planning", async () => {
      const dataset = this.dataset(ref);
      const table = await getTable(this.jobs.client, dataset, ref.name);
      const notes = collationNotes(table, await datasetCollation(this.jobs.client, dataset), options.cursor?.column);
      const field = table?.schema?.fields?.find((f) => f.name === options.cursor?.column);
      const deletesRange = options.strategy === "delete_insert" && options.rebuild !== true;
      if (options.cursor && options.range && field && deletesRange) {
        const predicate = rangePredicate(rangeDialect(field.type as CursorColumnType), {
          column: options.cursor.column,
          kind: options.cursor.kind,
          range: options.range,
          includeNulls: options.includeNulls === true,
        });
        const dry = await this.jobs.query(
          `DELETE FROM ${qualifiedTable(dataset, ref.name)} WHERE ${predicate}`,
          {},
          { dryRun: true },
        );
        if (dry.totalBytesProcessed !== undefined) notes.push(`the range delete scans ${dry.totalBytesProcessed} bytes`);
      }
      return notes;
    });
  }

  async close(): Promise<void> {}

  /** Datasets, the run log and the lock table are created before any unit: DDL cannot join a transaction. */
  private async prepareDataset(dataset: string): Promise<void> {
    if (this.datasets.has(dataset)) return;
    await ensureDataset(this.jobs.client, dataset, this.options.location);
    for (const [name, fields] of [
      [RUN_LOG_TABLE, RUN_LOG_FIELDS],
      [LOCK_TABLE, LOCK_FIELDS],
    ] as const) {
      if (!(await getTable(this.jobs.client, dataset, name))) {
        await createTable(this.jobs.client, dataset, name, { fields, labels: this.options.labels });
      }
    }
    this.datasets.add(dataset);
  }

  /** Waits until no other unit of this table is open in this process; resolves with the release. */
  private async takeTurn(ref: TargetTableRef): Promise<() => void> {
    const key = `${this.dataset(ref)}\u0000${ref.name}`;
    const previous = this.tableTurns.get(key) ?? Promise.resolve();
    let release!: () => void;
    const turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    const chained = previous.then(() => turn);
    this.tableTurns.set(key, chained);
    await previous;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
      if (this.tableTurns.get(key) === chained) this.tableTurns.delete(key);
    };
  }

  private async guard<T>(ref: TargetTableRef, what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const label = formatTargetTable(ref);
      throw toBigQueryError(error, `${what} ${label}`, label);
    }
  }
}

export type { TableMetadata };
