import { randomBytes } from "node:crypto";
import {
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type CursorRange,
  formatTargetTable,
  type RecordBatch,
  type RunLogRow,
  type TargetTableRef,
} from "@sqlload/core";
import { guardTable } from "./errors.js";
import { Binds, codePointText, qualifiedTable, quoteIdent, rangeCondition } from "./snowflake-dialect.js";
import { builtTableRef } from "./snowflake-leftovers.js";
import { createRunLogSql, insertRunLogBinds, insertRunLogSql } from "./snowflake-run-log.js";
import type { SnowflakeSession } from "./snowflake-session.js";
import { DEFAULT_BULK_LOAD_ROWS } from "./snowflake-settings.js";
import { createStageSql, SEQ_COLUMN, type StageRow, stageInserts, stageRows, typedStageColumns } from "./snowflake-stage.js";
import { StageFiles } from "./snowflake-stage-files.js";
import { snowflakeTypeSql } from "./snowflake-types.js";

let units = 0;

/**
 * One commit as one Snowflake transaction, in a session of its own. DDL commits an open
 * transaction implicitly, so everything that is DDL comes first and outside it: the temporary
 * stage (created at the first write), the run-log table, and for `replace` the new table. Batches go to
 * the stage as they arrive; `commit` then runs `BEGIN; DELETE …; INSERT … SELECT | MERGE …;
 * INSERT INTO _sqlload_runs …; COMMIT`. `replace` fills the new table in the transaction and swaps
 * it in with `ALTER TABLE … SWAP WITH`, which is DDL: its run-log records follow the swap. A
 * `replace` asked for `recordWithData` makes no new table: its transaction deletes every row of
 * the live table and inserts the stage's, with the records.
 */
export class SnowflakeCommitUnit implements CommitUnit {
  private readonly deletes: { range: CursorRange; includeNulls: boolean }[] = [];
  private readonly log: RunLogRow[] = [];
  private rows = 0;
  /** Rows of a unit still below the bulk threshold, for INSERTs at commit. */
  private held: StageRow[] = [];
  private files: StageFiles | undefined;
  private done = false;
  private columns: readonly Column[] | undefined;

  private constructor(
    private readonly session: SnowflakeSession,
    private readonly ref: TargetTableRef,
    private readonly options: CommitUnitOptions,
    private readonly stage: TargetTableRef,
    private readonly built: TargetTableRef | undefined,
    private readonly exists: boolean,
    private readonly token: string,
    private readonly bulkLoadRows: number,
  ) {}

  static async open(
    session: SnowflakeSession,
    ref: TargetTableRef,
    options: CommitUnitOptions,
    exists: boolean,
    bulkLoadRows = DEFAULT_BULK_LOAD_ROWS,
  ): Promise<SnowflakeCommitUnit> {
    const token = `${randomBytes(4).toString("hex")}_${++units}`;
    const stage = { schema: ref.schema, name: `_sqlload_stage_${token}` };
    const built = options.strategy === "replace" && !options.recordWithData ? builtTableRef(ref, token) : undefined;
    return new SnowflakeCommitUnit(session, ref, options, stage, built, exists, token, bulkLoadRows);
  }

  /**
   * The stage (and for `replace` the new table) are made at the first write, when the columns are
   * known (a `replace` may begin with none and learn them from its first batch). No transaction is
   * open before `commit`, so this DDL commits nothing.
   */
  private async prepare(batch: RecordBatch | undefined): Promise<void> {
    if (this.columns) return;
    const columns = this.options.columns.length > 0 || !batch ? this.options.columns : batch.schema;
    this.columns = columns;
    if (columns.length === 0) return;
    await this.session.run(createStageSql(this.stage, columns));
    if (this.built) await this.session.run(createTableSql(this.built, { columns }));
  }

  async deleteRange(range: CursorRange, options: { readonly includeNulls?: boolean } = {}): Promise<void> {
    this.deletes.push({ range, includeNulls: options.includeNulls ?? false });
  }

  async write(batch: RecordBatch): Promise<void> {
    if (batch.length === 0) return;
    await guardTable(this.ref, "writing to", async () => {
      await this.prepare(batch);
      const rows = stageRows(this.columns ?? [], batch, this.rows);
      this.rows += batch.length;
      if (!this.files && this.rows < this.bulkLoadRows) {
        for (const row of rows) this.held.push(row);
        return;
      }
      this.files ??= new StageFiles(this.session, this.stage, this.token);
      await this.files.add(this.held.splice(0));
      await this.files.add(rows);
    });
  }

  /** Puts the unit's rows into the stage: the bulk files by COPY, or the held rows by INSERTs. */
  private async fillStage(): Promise<void> {
    if (this.files) return this.files.load(this.rows);
    for (const insert of stageInserts(this.stage, this.columns ?? [], this.held.splice(0))) {
      await this.session.run(insert.sql, insert.binds);
    }
  }

  async appendRunLog(row: RunLogRow): Promise<void> {
    // DDL, so now: no transaction is open before `commit`.
    if (this.log.length === 0)
      await guardTable(this.ref, "creating the run log of", () => this.session.run(createRunLogSql(this.ref.schema)));
    this.log.push(row);
  }

  async commit(): Promise<void> {
    await guardTable(this.ref, "committing", async () => {
      await this.prepare(undefined);
      await this.fillStage();
      const built = this.columns?.length ? this.built : undefined;
      await this.session.run("BEGIN");
      const target = built ?? this.ref;
      if (!built && this.exists) {
        // DML, inside the transaction: readers see the old rows until COMMIT.
        if (this.options.recordWithData) await this.session.run(`DELETE FROM ${qualifiedTable(this.ref)} WHERE TRUE`);
        for (const d of this.deletes) await this.runDelete(d.range, d.includeNulls);
      }
      if (this.rows > 0 || built) await this.landRows(target);
      if (!built)
        for (const row of this.log)
          await this.session.run(insertRunLogSql(this.ref.schema), insertRunLogBinds(this.ref.name, row));
      await this.session.run("COMMIT");
      if (built) {
        await this.session.run(
          this.exists
            ? `ALTER TABLE ${qualifiedTable(built)} SWAP WITH ${qualifiedTable(this.ref)}`
            : `ALTER TABLE ${qualifiedTable(built)} RENAME TO ${qualifiedTable(this.ref)}`,
        );
        // The records follow the swap at once, before the old table is dropped, so a crash can cut
        // between the two for only one round trip (see docs/connectors/snowflake.md on replace).
        for (const row of this.log)
          await this.session.run(insertRunLogSql(this.ref.schema), insertRunLogBinds(this.ref.name, row));
        if (this.exists) await this.session.run(`DROP TABLE IF EXISTS ${qualifiedTable(built)}`);
      }
    });
    this.done = true;
    await this.finish();
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.session.run("ROLLBACK").catch(() => undefined);
    if (this.built) await this.session.run(`DROP TABLE IF EXISTS ${qualifiedTable(this.built)}`).catch(() => undefined);
    await this.finish();
  }

  private async finish(): Promise<void> {
    this.files?.remove();
    // The stage is a temporary table of this session, which ending the session drops.
    await this.session.close().catch(() => undefined);
  }

  private async runDelete(range: CursorRange, includeNulls: boolean): Promise<void> {
    const cursor = this.options.cursor;
    if (!cursor) throw new Error(`a range delete on ${formatTargetTable(this.ref)} needs the table's cursor column`);
    const binds = new Binds();
    const where = rangeCondition({ column: cursor.column, kind: cursor.kind, range, includeNulls }, binds);
    await this.session.run(`DELETE FROM ${qualifiedTable(this.ref)} WHERE ${where}`, binds.values);
  }

  private async landRows(target: TargetTableRef): Promise<void> {
    const columns = this.columns ?? [];
    const names = columns.map((c) => quoteIdent(c.name));
    const typed = typedStageColumns(columns, "s");
    const stage = qualifiedTable(this.stage);
    const key = this.options.primaryKey ?? [];
    if (this.options.strategy !== "merge" || key.length === 0) {
      await this.session.run(
        `INSERT INTO ${qualifiedTable(target)} (${names.join(", ")}) SELECT ${typed.join(", ")} FROM ${stage} AS s ORDER BY s.${quoteIdent(SEQ_COLUMN)}`,
      );
      return;
    }
    const textKey = new Set(columns.filter((c) => c.type.kind === "text").map((c) => c.name));
    const side = (alias: string, k: string) =>
      textKey.has(k) ? codePointText(`${alias}.${quoteIdent(k)}`) : `${alias}.${quoteIdent(k)}`;
    const on = key.map((k) => `${side("t", k)} = ${side("n", k)}`).join(" AND ");
    const partition = key.map((k) => `s.${quoteIdent(k)}`).join(", ");
    const latest = `SELECT ${typed.join(", ")} FROM ${stage} AS s QUALIFY ROW_NUMBER() OVER (PARTITION BY ${partition} ORDER BY s.${quoteIdent(SEQ_COLUMN)} DESC) = 1`;
    const rest = columns.filter((c) => !key.includes(c.name));
    const set = rest.map((c) => `${quoteIdent(c.name)} = n.${quoteIdent(c.name)}`).join(", ");
    await this.session.run(
      `MERGE INTO ${qualifiedTable(target)} AS t USING (${latest}) AS n ON ${on}${set ? ` WHEN MATCHED THEN UPDATE SET ${set}` : ""} WHEN NOT MATCHED THEN INSERT (${names.join(", ")}) VALUES (${names.map((n) => `n.${n}`).join(", ")})`,
    );
  }
}

export function createTableSql(ref: TargetTableRef, options: Pick<CommitUnitOptions, "columns">): string {
  const defs = options.columns.map((c) => `${quoteIdent(c.name)} ${snowflakeTypeSql(c.type)}${c.nullable ? "" : " NOT NULL"}`);
  return `CREATE TABLE ${qualifiedTable(ref)} (${defs.join(", ")})`;
}
