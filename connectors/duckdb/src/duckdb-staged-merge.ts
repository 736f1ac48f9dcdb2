import type { DuckDBConnection } from "@duckdb/node-api";
import { type RecordBatch, SqlloadError } from "@sqlload/core";
import { TableAppender } from "./duckdb-appender.js";
import { quoteIdent } from "./duckdb-dialect.js";
import { writingTable } from "./duckdb-statement.js";

/** The stage's column numbering each row's batch: of two rows with one key, the later batch's wins. */
const BATCH_NUMBER = "__sqlload_batch";

/**
 * Staged rows are merged once this many rows, or bytes (as the caller measures its batches), wait.
 * Each merge scans the whole table it merges into for the keys it replaces (DuckDB keeps no index
 * on it): merged a batch at a time, a load of 1M rows scanned it 244 times, and the statements kept
 * the unit waiting on DuckDB for half its time (2M rows into a DuckDB file 16.4 s, now 4.5–5.9 s).
 * The bytes bound the stage for wide rows. The stage is dropped after each merge, which frees it
 * at once outside a transaction (the files target: a merge of 2M rows peaked at 444 MB, 545 MB
 * when its rows were deleted instead). Inside one (the DuckDB target) DuckDB keeps what the
 * transaction staged until it ends, spilling past `memory_limit`, so a merge needs more of it than
 * an append: a limit of 16 MB, under which rows merged a batch at a time, no longer does.
 */
const MERGE_ROWS = 1 << 18;
const MERGE_BYTES = 32 << 20;

/** What a StagedMerge merges into. */
export interface StagedMergeTarget {
  /** The table the rows replace their keys in, as SQL. */
  readonly into: string;
  /** Its column names in table order: the stage is made like it, with the batch number after them. */
  readonly columns: readonly string[];
  /** The primary key: each part's column in the table, and its name as errors show it. */
  readonly keys: readonly { readonly column: string; readonly name: string }[];
  /** The temporary table of the connection the rows wait in (made on the first write). */
  readonly stage: string;
  /** How errors name the table. */
  readonly label: string;
  /** Batch columns match table columns by exact name only (see AppendTarget). */
  readonly exactNames?: boolean | undefined;
}

/**
 * An upsert on a primary key, for a DuckDB connection's open work: batches are appended to a
 * staging table, numbered, and replace their keys' rows in the table a few hundred thousand rows
 * at a time, and at `settle`, which the owner calls before anything that must see the table's
 * rows. A key twice in one batch is an error (SL301); a key in several batches takes its row from
 * the last of them.
 */
export class StagedMerge {
  private created = false;
  private appender: TableAppender | undefined;
  private batches = 0;
  private rows = 0;
  private bytes = 0;

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly target: StagedMergeTarget,
  ) {
    if (target.keys.length === 0) throw new SqlloadError("SL108", `merge into ${target.label} needs a primary key`);
  }

  /** Stages a batch of `bytes` (as the owner measures it), and merges once enough waits. */
  async write(batch: RecordBatch, bytes: number): Promise<void> {
    const appender = this.appender ?? (await this.openStage());
    await this.guard(async () => {
      try {
        appender.append(numbered(batch, ++this.batches), bytes);
      } catch (error) {
        appender.discard();
        this.appender = undefined;
        throw error;
      }
    });
    this.rows += batch.length;
    this.bytes += bytes;
    if (this.rows >= MERGE_ROWS || this.bytes >= MERGE_BYTES) await this.settle();
  }

  /** Replaces the keys of the staged rows in the table with them; nothing waits after it. */
  async settle(): Promise<void> {
    const appender = this.appender;
    if (!appender) return;
    this.appender = undefined;
    this.rows = 0;
    this.bytes = 0;
    await this.guard(async () => appender.close());
    const { into, keys, label } = this.target;
    const stage = this.stageSql();
    const columns = keys.map((k) => quoteIdent(k.column)).join(", ");
    const batch = quoteIdent(BATCH_NUMBER);
    // A key staged more than once, and whether each time in another batch: false (a key twice in
    // one batch, an error) sorts before true (an update, the later batch's row kept).
    const repeated = await this.guard(async () =>
      (
        await this.connection.runAndReadAll(
          `SELECT ${columns}, count(DISTINCT ${batch}) = count(*) FROM ${stage} GROUP BY ${columns} HAVING count(*) > 1 ORDER BY ${keys.length + 1} LIMIT 1`,
        )
      ).getRowsJS(),
    );
    const first = repeated[0];
    if (first && first[keys.length] === false) {
      // Worded like core's own key check, which usually catches this first.
      const shown = keys.map((k, i) => `${k.name} = ${shownKey(first[i])}`).join(", ");
      throw new SqlloadError("SL301", `table ${label}: primary key (${shown}) appears more than once in one batch`, {
        table: label,
      });
    }
    const match = keys.map((k) => `t.${quoteIdent(k.column)} IS NOT DISTINCT FROM s.${quoteIdent(k.column)}`).join(" AND ");
    const latest = first ? ` QUALIFY row_number() OVER (PARTITION BY ${columns} ORDER BY ${batch} DESC) = 1` : "";
    await this.guard(() =>
      this.connection.run(
        [
          `DELETE FROM ${into} AS t USING ${stage} AS s WHERE ${match}`,
          `INSERT INTO ${into} BY NAME SELECT * EXCLUDE (${batch}) FROM ${stage}${latest}`,
          `DROP TABLE ${stage}`,
        ].join(";\n"),
      ),
    );
    this.created = false;
  }

  /** After a failure: ends the stage's appender without writing what it holds. */
  discard(): void {
    this.appender?.discard();
    this.appender = undefined;
  }

  private async openStage(): Promise<TableAppender> {
    const { into, columns, stage, label, exactNames } = this.target;
    return this.guard(async () => {
      if (!this.created) {
        await this.connection.run(
          `CREATE TEMP TABLE ${quoteIdent(stage)} AS SELECT *, 0::INTEGER AS ${quoteIdent(BATCH_NUMBER)} FROM ${into} LIMIT 0`,
        );
        this.created = true;
      }
      this.appender = await TableAppender.open(this.connection, {
        catalog: "temp",
        schema: "main",
        name: stage,
        columns: [...columns, BATCH_NUMBER],
        label,
        exactNames,
      });
      return this.appender;
    });
  }

  private stageSql(): string {
    return `temp.main.${quoteIdent(this.target.stage)}`;
  }

  private guard<T>(work: () => Promise<T>): Promise<T> {
    return writingTable(this.target.label, work);
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
