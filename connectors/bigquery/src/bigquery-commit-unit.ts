import { createWriteStream, mkdtempSync, rmSync, type WriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type CursorRange,
  formatTargetTable,
  type RecordBatch,
  type RunLogRow,
  rangePredicate,
  SqlloadError,
  type TargetTableRef,
} from "@sqlload/core";
import { createTable, deleteTable, type NewTable, type TableMetadata } from "./bigquery-catalog.js";
import { commitScript, swapSql } from "./bigquery-commit-script.js";
import { CursorBounds } from "./bigquery-cursor-bounds.js";
import { type CursorColumnType, qualifiedTable, rangeDialect } from "./bigquery-dialect.js";
import type { BigQueryJobs } from "./bigquery-jobs.js";
import { tableLayout } from "./bigquery-layout.js";
import { type IntegerPartitionRange, integerPartitionRange } from "./bigquery-partition-range.js";
import { insertRunLogSql } from "./bigquery-run-log.js";
import { auxName, STAGE_LIFETIME_MS } from "./bigquery-stage.js";
import { type FieldSchema, fieldOf } from "./bigquery-types.js";
import { ndjsonLine } from "./bigquery-values.js";
import { toBigQueryError } from "./errors.js";

/** What a unit needs from its target. */
export interface UnitContext {
  readonly jobs: BigQueryJobs;
  readonly dataset: string;
  readonly ref: TargetTableRef;
  /** For a replace: the table it replaces (null when there is none yet). */
  readonly replaced?: TableMetadata | null | undefined;
  /** The cursor column's stored type, when the table has one. */
  readonly cursorType?: CursorColumnType | undefined;
  readonly partition: boolean;
  /** The `partition_range` setting, for a build of a table partitioned by an integer cursor. */
  readonly partitionRange?: IntegerPartitionRange | undefined;
  readonly labels: Readonly<Record<string, string>>;
  /** Bytes of NDJSON buffered before a load job (default 64 MB: the upload is sent from memory). */
  readonly flushBytes?: number | undefined;
  /** Called once the unit ended, committed or not. */
  readonly done: () => void;
}

/**
 * One commit: batches are written to a local NDJSON file, loaded (a load job, never streaming:
 * streamed rows cannot be deleted for up to 90 minutes) into a uniquely named stage table that
 * expires on its own, and one script job then deletes the range, inserts or merges the stage's
 * rows and appends the run log in one transaction. The stage is dropped after. A replace loads
 * a build table instead and swaps it in with one statement; one asked for `recordWithData`
 * stages its rows like any unit and replaces the live table's in that one transaction instead.
 */
export class BigQueryCommitUnit implements CommitUnit {
  private readonly deletes: string[] = [];
  private readonly log: RunLogRow[] = [];
  private readonly folder = mkdtempSync(join(tmpdir(), "sqlload-bigquery-"));
  private file: WriteStream | undefined;
  private bufferedBytes = 0;
  private fileCount = 0;
  private stage: { readonly name: string; readonly fields: readonly FieldSchema[] } | undefined;
  private columns: readonly Column[];
  private ended = false;
  /** The integer cursor's minimum and maximum among the rows a replace has written, to lay out its build. */
  private readonly seen = new CursorBounds();

  constructor(
    private readonly context: UnitContext,
    private readonly options: CommitUnitOptions,
  ) {
    this.columns = options.columns;
  }

  private get label(): string {
    return formatTargetTable(this.context.ref);
  }

  /** A replace that builds a new table and swaps it in (not one replacing the rows with its record). */
  private get swaps(): boolean {
    return this.options.strategy === "replace" && this.options.recordWithData !== true;
  }

  async deleteRange(range: CursorRange, options: { readonly includeNulls?: boolean } = {}): Promise<void> {
    const cursor = this.options.cursor;
    if (!cursor) throw new SqlloadError("SL305", `deleting a range of ${this.label} needs its cursor column`);
    if (!this.context.cursorType) return; // the table does not exist yet: nothing to delete
    this.deletes.push(
      rangePredicate(rangeDialect(this.context.cursorType), {
        column: cursor.column,
        kind: cursor.kind,
        range,
        includeNulls: options.includeNulls === true,
      }),
    );
  }

  async write(batch: RecordBatch): Promise<void> {
    if (batch.length === 0) return;
    if (this.columns.length === 0) this.columns = batch.schema;
    if (this.swaps && this.options.cursor?.kind === "integer") {
      this.seen.add(batch, this.options.cursor.column);
    }
    if (!this.file) this.file = createWriteStream(join(this.folder, `rows-${this.fileCount++}.ndjson`));
    const lines: string[] = [];
    for (let row = 0; row < batch.length; row++) lines.push(ndjsonLine(batch, row, this.label));
    const text = `${lines.join("\n")}\n`;
    this.bufferedBytes += Buffer.byteLength(text);
    if (!this.file.write(text)) await new Promise<void>((resolve) => this.file?.once("drain", () => resolve()));
    if (this.bufferedBytes >= (this.context.flushBytes ?? 64 * 1024 * 1024)) {
      await this.flush().catch((error: unknown) => {
        throw toBigQueryError(error, `loading rows of ${this.label}`, this.label);
      });
    }
  }

  async appendRunLog(row: RunLogRow): Promise<void> {
    this.log.push(row);
  }

  async commit(): Promise<void> {
    this.end();
    try {
      await this.flush();
      if (this.swaps) await this.swap();
      else await this.runScript();
    } catch (error) {
      throw toBigQueryError(error, `committing ${this.label}`, this.label);
    } finally {
      // A stage that cannot be dropped now expires on its own, and the next run's lock sweeps it.
      await this.dropStage().catch(() => undefined);
      rmSync(this.folder, { recursive: true, force: true });
      this.context.done();
    }
  }

  async abort(): Promise<void> {
    if (this.ended) return;
    this.end();
    try {
      const file = this.file;
      this.file = undefined;
      if (file) await new Promise<void>((resolve) => file.end(() => resolve()));
      await this.dropStage();
    } catch (error) {
      throw toBigQueryError(error, `aborting the commit of ${this.label}`, this.label);
    } finally {
      rmSync(this.folder, { recursive: true, force: true });
      this.context.done();
    }
  }

  private end(): void {
    if (this.ended) throw new SqlloadError("SL305", `the commit of ${this.label} already ended`);
    this.ended = true;
  }

  /** Loads what is buffered into the stage (created on first use). */
  private async flush(): Promise<void> {
    const file = this.file;
    if (!file) return;
    this.file = undefined;
    await new Promise<void>((resolve, reject) => file.end((error?: Error | null) => (error ? reject(error) : resolve())));
    if (this.bufferedBytes === 0) return;
    this.bufferedBytes = 0;
    const stage = await this.ensureStage();
    await this.context.jobs.loadNdjson(this.context.dataset, stage.name, file.path as string, stage.fields);
    rmSync(file.path as string, { force: true });
  }

  private async ensureStage(): Promise<{ readonly name: string; readonly fields: readonly FieldSchema[] }> {
    if (this.stage) return this.stage;
    const replace = this.swaps;
    const name = auxName(replace ? "build" : "stage", this.context.ref.name);
    const layout = replace
      ? this.buildLayout()
      : {
          fields: this.columns.map(
            (c) => ({ ...fieldOf(c), mode: fieldOf(c).mode === "REPEATED" ? "REPEATED" : "NULLABLE" }) as FieldSchema,
          ),
        };
    await createTable(this.context.jobs.client, this.context.dataset, name, {
      ...layout,
      ...(replace ? {} : { expirationTime: Date.now() + STAGE_LIFETIME_MS }),
      labels: this.context.labels,
    });
    this.stage = { name, fields: layout.fields };
    return this.stage;
  }

  /**
   * The build of a replace: laid out for the cursor and keys (integer ranges chosen from the rows
   * seen before its first load, unless `partition_range` sets them), but partitioned as the table
   * it replaces while that partitioning still fits the columns, since BigQuery refuses to replace
   * a table with one partitioned otherwise (the error then says to drop the table by hand).
   */
  private buildLayout(): NewTable {
    const seen = this.seen.range;
    const layout = tableLayout(this.columns, {
      cursor: this.options.cursor,
      primaryKey: this.options.primaryKey,
      partition: this.context.partition,
      integerRange: this.context.partitionRange ?? (seen ? integerPartitionRange(seen) : undefined),
    });
    const replaced = this.context.replaced;
    if (!replaced) return layout;
    const unpartitioned = { ...layout, timePartitioning: undefined, rangePartitioning: undefined };
    const fieldOfKept = (name: string | undefined) => {
      const field = name ? layout.fields.find((f) => f.name === name) : undefined;
      return field && field.mode !== "REPEATED" ? field : undefined;
    };
    const byDay = replaced.timePartitioning;
    if (byDay) {
      const field = fieldOfKept(byDay.field);
      return field && ["DATE", "TIMESTAMP", "DATETIME"].includes(field.type)
        ? { ...unpartitioned, timePartitioning: { type: byDay.type, field: field.name } }
        : layout;
    }
    const byRange = replaced.rangePartitioning;
    if (byRange) {
      const field = fieldOfKept(byRange.field);
      return field?.type === "INT64" ? { ...unpartitioned, rangePartitioning: { ...byRange, field: field.name } } : layout;
    }
    return unpartitioned;
  }

  private async dropStage(): Promise<void> {
    const stage = this.stage;
    if (!stage) return;
    this.stage = undefined;
    await deleteTable(this.context.jobs.client, this.context.dataset, stage.name);
  }

  private logStatements() {
    return this.log.map((row, i) => insertRunLogSql(this.context.dataset, this.context.ref.name, row, String(i)));
  }

  private async runScript(): Promise<void> {
    // A unit begun before its table existed (an empty window of a table only rows can describe) only logs.
    const hasTable = this.options.columns.length > 0 || this.context.cursorType !== undefined;
    const stage = hasTable && this.stage ? qualifiedTable(this.context.dataset, this.stage.name) : undefined;
    // DML, so it joins the transaction: readers see the old rows until COMMIT.
    const replacesAll = this.options.strategy === "replace" && this.options.recordWithData === true;
    const deletes = hasTable ? (replacesAll ? ["TRUE"] : this.deletes) : [];
    if (!stage && deletes.length === 0 && this.log.length === 0) return;
    const script = commitScript({
      table: qualifiedTable(this.context.dataset, this.context.ref.name),
      stage,
      columns: this.columns.map((c) => c.name),
      deletes,
      merge: this.options.strategy === "merge" ? { keys: this.options.primaryKey ?? [] } : undefined,
      log: this.logStatements(),
    });
    await this.context.jobs.query(script.sql, script.params);
  }

  /**
   * A replace: the build table (created empty when no row came) is copied over the table in one
   * statement. DDL cannot join a transaction, so the run-log records follow in a transaction of
   * their own: a crash between the two leaves the new table without its record, and the next
   * replace reads everything again anyway.
   */
  private async swap(): Promise<void> {
    if (this.columns.length > 0) {
      const build = await this.ensureStage();
      const table = qualifiedTable(this.context.dataset, this.context.ref.name);
      await this.context.jobs.query(swapSql(table, qualifiedTable(this.context.dataset, build.name)));
    }
    const log = commitScript({ table: "", columns: [], deletes: [], log: this.logStatements() });
    if (this.log.length > 0) await this.context.jobs.query(log.sql, log.params);
  }
}
