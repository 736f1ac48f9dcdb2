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
import type pg from "pg";
import { HEADER, rawCopyOf, sameWire, TRAILER } from "./copy-binary.js";
import { CopyBinaryEncoder } from "./copy-binary-encoder.js";
import { CopyInQuery } from "./copy-in-query.js";
import { type ErrorContext, toSqlloadError } from "./errors.js";
import { defaultCollationIsCodePoint, describeRelation, type Queryable } from "./postgres-catalog.js";
import {
  cursorCast,
  cursorKindOfColumn,
  cursorParameter,
  derivedName,
  type PgColumn,
  pgTypeFor,
  qualifiedName,
  quoteIdent,
  rangeDialect,
  sortsByCodePoint,
} from "./postgres-dialect.js";
import { ensureRunLogTable, insertRunLogSql, readRunLog } from "./postgres-run-log.js";
import { describeTargetTable } from "./postgres-target-table.js";

/** The columns of a table, or null when it does not exist. */
export async function describePg(db: Queryable, ref: TargetTableRef): Promise<PgColumn[] | null> {
  return (await describeRelation(db, ref))?.columns ?? null;
}

/** `CREATE TABLE` column definitions for logical columns. Every column is nullable: see ensureTable. */
export function columnDefinitions(columns: readonly Column[]): string {
  return columns.map((c) => `${quoteIdent(c.name)} ${pgTypeFor(c.type)}`).join(", ");
}

/** A COPY in progress on the unit's connection, kept open across `write` calls. */
interface OpenCopy {
  readonly key: string;
  readonly query: CopyInQuery;
  readonly encoder: CopyBinaryEncoder;
}

/** Where a unit's rows land, and that relation's columns. */
interface Destination {
  readonly sql: string;
  readonly columns: readonly PgColumn[];
}

let stagingCounter = 0;

/**
 * One transaction on a dedicated connection. Rows go in by binary `COPY FROM STDIN`: straight
 * into the table for append and delete_insert, into a temporary staging table for merge (upserted
 * at commit), into `<name>__sqlload_new` for replace (swapped in by rename at commit).
 */
export class PostgresCommitUnit implements CommitUnit {
  private copy: OpenCopy | undefined;
  private done = false;
  /** Batches written: passed on as the COPY bytes they were read as, or encoded. */
  readonly stats = { passedThrough: 0, encoded: 0 };
  private readonly display: string;

  private constructor(
    private readonly client: pg.PoolClient,
    private readonly ref: TargetTableRef,
    private readonly options: CommitUnitOptions,
    /**
     * Where `write` lands rows: the table itself, the staging table or the new table; undefined
     * for a unit on a table that does not exist yet (it only logs) and for a replace begun
     * without columns (the first batch creates the new table).
     */
    private destination: Destination | undefined,
    /** The table's own columns (for range deletes). */
    private readonly tableColumns: readonly PgColumn[],
    private readonly context: (action: string) => ErrorContext,
    /** The schema's run log exists (seen by this unit's describe, or written by it): no check before using it. */
    private runLogExists: boolean,
    /** Called once the unit has committed or rolled back. */
    private readonly onFinished: () => void,
  ) {
    this.display = formatTargetTable(ref);
  }

  /**
   * Opens the transaction and prepares the destination of the strategy. The table is described
   * inside the transaction, by each unit: its columns' types decide how rows are sent (binary
   * COPY), so a type changed by hand between two units of a load is seen by the next one.
   */
  static async begin(
    client: pg.PoolClient,
    ref: TargetTableRef,
    options: CommitUnitOptions,
    context: (action: string) => ErrorContext,
    onFinished: () => void = () => undefined,
  ): Promise<PostgresCommitUnit> {
    const display = formatTargetTable(ref);
    await client.query("BEGIN");
    const table = await describeTargetTable(client, ref);
    const runLog = table?.runLog === true;
    const unit = (destination: Destination | undefined, columns: readonly PgColumn[]): PostgresCommitUnit =>
      new PostgresCommitUnit(client, ref, options, destination, columns, context, runLog, onFinished);
    if (options.strategy === "replace") {
      const next = { schema: ref.schema, name: derivedName(ref.name, "__sqlload_new") };
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(ref.schema)}`);
      // A crashed run cannot leave it behind (it is built in this transaction), but a hand-made
      // or half-migrated one must not make every later run fail.
      await client.query(`DROP TABLE IF EXISTS ${qualifiedName(next)}`);
      const built = unit(undefined, table?.columns ?? []);
      if (options.columns.length > 0) await built.createBuildTable(options.columns);
      return built;
    }
    const existing = table?.columns;
    if (!existing) return unit(undefined, []);
    if (options.strategy !== "merge") return unit({ sql: qualifiedName(ref), columns: existing }, existing);
    const key = options.primaryKey ?? [];
    if (key.length === 0) throw new SqlloadError("SL108", `merge into ${display} needs a primary key`);
    for (const name of key) {
      if (!existing.some((c) => c.name === name)) {
        throw new SqlloadError("SL208", `primary key column "${name}" is not in ${display}`, { table: display });
      }
    }
    await ensureUniqueIndex(client, ref, key);
    const wanted = new Set(options.columns.map((c) => c.name));
    const staged = existing.filter((c) => wanted.has(c.name));
    const stage = `"_sqlload_stage_${process.pid}_${++stagingCounter}"`;
    await client.query(
      `CREATE TEMP TABLE ${stage} ON COMMIT DROP AS SELECT ${staged.map((c) => quoteIdent(c.name)).join(", ")} FROM ${qualifiedName(ref)} WITH NO DATA`,
    );
    return unit({ sql: stage, columns: staged }, existing);
  }

  /** Creates the new table of a replace, from the unit's columns or the first batch's. */
  private async createBuildTable(columns: readonly Column[]): Promise<void> {
    const next = { schema: this.ref.schema, name: derivedName(this.ref.name, "__sqlload_new") };
    await this.client.query(`CREATE TABLE ${qualifiedName(next)} (${columnDefinitions(columns)})`);
    this.destination = { sql: qualifiedName(next), columns: (await describePg(this.client, next)) ?? [] };
  }

  /** Committed or rolled back. */
  get finished(): boolean {
    return this.done;
  }

  private assertOpen(): void {
    if (this.done) throw new SqlloadError("SL900", `the commit unit of ${this.display} is already finished`);
  }

  async write(batch: RecordBatch): Promise<void> {
    this.assertOpen();
    if (batch.length === 0) return;
    try {
      if (!this.destination && this.options.strategy === "replace") await this.createBuildTable(batch.schema);
      const destination = this.destination;
      if (!destination)
        throw new SqlloadError("SL305", `target table ${this.display} does not exist; it is created before loading`, {
          table: this.display,
        });
      const byName = new Map(destination.columns.map((c) => [c.name, c]));
      for (const column of batch.schema) {
        if (!byName.has(column.name)) {
          throw new SqlloadError("SL209", `column "${column.name}" is not in ${this.display}`, { table: this.display });
        }
      }
      // Rows read from Postgres in the very formats these columns take are passed on as they are.
      const raw = rawCopyOf(batch);
      const same = raw?.wires.every((wire, i) => sameWire(wire, (byName.get(batch.schema[i]?.name ?? "") as PgColumn).wire));
      if (raw && same && raw.wires.length === batch.schema.length) {
        const copy = await this.openCopy(batch.schema.map((c) => byName.get(c.name) as PgColumn));
        await copy.query.write(raw.parts, true);
        this.stats.passedThrough++;
        return;
      }
      this.stats.encoded++;
      const names = new Set(batch.schema.map((c) => c.name));
      const columns = destination.columns.filter((c) => names.has(c.name));
      const copy = await this.openCopy(columns);
      await copy.query.write(copy.encoder.encode(batch), false);
    } catch (error) {
      throw toSqlloadError(error, this.context(`writing to ${this.display}`));
    }
  }

  /** The open COPY when it takes the same columns, else a new one (ending the previous). */
  private async openCopy(columns: readonly PgColumn[]): Promise<OpenCopy> {
    const key = JSON.stringify(columns.map((c) => c.name));
    if (this.copy?.key === key) return this.copy;
    await this.finishCopy();
    const list = columns.map((c) => quoteIdent(c.name)).join(", ");
    // A deeper buffer than the socket's 16 kB lets encoding run ahead of the socket; 1 MB is enough
    // (4 MB showed no clear gain on a busy 2-core machine and held more memory).
    const query = this.client.query(
      new CopyInQuery(`COPY ${this.destination?.sql} (${list}) FROM STDIN (FORMAT binary)`, 1 << 20),
    );
    const copy: OpenCopy = { key, query, encoder: new CopyBinaryEncoder(columns, this.display) };
    this.copy = copy;
    await query.write([HEADER], false);
    return copy;
  }

  /** Ends the COPY in progress, so the connection can run other statements. */
  private async finishCopy(): Promise<void> {
    const copy = this.copy;
    if (!copy) return;
    this.copy = undefined;
    await copy.query.write([TRAILER], false);
    await copy.query.end();
  }

  async deleteRange(range: CursorRange, options: { readonly includeNulls?: boolean } = {}): Promise<void> {
    this.assertOpen();
    // The new table of a replace starts empty: there is nothing to delete.
    if (this.options.strategy === "replace") return;
    const cursor = this.options.cursor;
    if (!cursor) throw new SqlloadError("SL900", `deleteRange on ${this.display} without a cursor column`);
    try {
      await this.finishCopy();
      const column = this.tableColumns.find((c) => c.name === cursor.column);
      if (!column) return; // no such table or column: no row can lie in the range
      const kind = cursorKindOfColumn(column) ?? cursor.kind;
      // A column that already sorts by code point compares as it is, so its own index serves the delete.
      const native = kind === "text" && sortsByCodePoint(column, await defaultCollationIsCodePoint(this.client));
      const params: string[] = [];
      const parameters = rangeDialect(column, native, (v) => {
        params.push(cursorParameter(v));
        return `$${params.length}::${cursorCast(column, kind)}`;
      });
      const where = rangePredicate(parameters, { column: column.name, kind, range, includeNulls: options.includeNulls ?? false });
      await this.client.query(`DELETE FROM ${qualifiedName(this.ref)} WHERE ${where}`, params);
    } catch (error) {
      throw toSqlloadError(error, this.context(`deleting a range of ${this.display}`));
    }
  }

  async appendRunLog(row: RunLogRow): Promise<void> {
    this.assertOpen();
    try {
      await this.finishCopy();
      // A unit on a table not created yet may be the first thing in its schema. One that found its
      // table found the schema (dropped since, the unit fails and commits nothing): a round trip fewer.
      if (this.tableColumns.length === 0) await this.client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.ref.schema)}`);
      if (!this.runLogExists) await ensureRunLogTable(this.client, this.ref.schema);
      this.runLogExists = true;
      await this.client.query(insertRunLogSql(this.ref.schema), [row.runId, row.table, row.at, row.formatVersion, row.body]);
    } catch (error) {
      throw toSqlloadError(error, this.context(`writing the run log of ${this.display}`));
    }
  }

  async runLogOfRun(runId: string): Promise<readonly RunLogRow[]> {
    this.assertOpen();
    try {
      await this.finishCopy();
      // A reload's build logs under the live table.
      const log = this.options.runLogTable ?? this.ref;
      // A schema has one log: what this unit knows of its own schema's holds for a build beside it.
      const exists = this.runLogExists && log.schema === this.ref.schema;
      return await readRunLog(this.client, log.schema, formatTargetTable(log), { runId, exists });
    } catch (error) {
      throw toSqlloadError(error, this.context(`reading the run log of ${this.display}`));
    }
  }

  async commit(): Promise<void> {
    this.assertOpen();
    try {
      await this.finishCopy();
      // A unit without a destination only logged: there is nothing to merge or swap in.
      if (this.destination && this.options.strategy === "merge") await this.merge();
      if (this.destination && this.options.strategy === "replace") await this.swap();
      await this.client.query("COMMIT");
      this.done = true;
      this.client.release();
      this.onFinished();
    } catch (error) {
      const mapped = toSqlloadError(error, this.context(`committing ${this.display}`));
      await this.rollback(error);
      throw mapped;
    }
  }

  /** Upserts the staged rows; rows that share a key within the unit are an error (SL301). */
  private async merge(): Promise<void> {
    const destination = this.destination!;
    const key = this.options.primaryKey ?? [];
    const columns = destination.columns.map((c) => quoteIdent(c.name));
    const keySql = key.map(quoteIdent).join(", ");
    const updates = destination.columns
      .filter((c) => !key.includes(c.name))
      .map((c) => `${quoteIdent(c.name)} = EXCLUDED.${quoteIdent(c.name)}`);
    const action = updates.length > 0 ? `DO UPDATE SET ${updates.join(", ")}` : "DO NOTHING";
    await this.client.query(
      `INSERT INTO ${qualifiedName(this.ref)} (${columns.join(", ")}) SELECT ${columns.join(", ")} FROM ${destination.sql} ON CONFLICT (${keySql}) ${action}`,
    );
  }

  /** Puts the new table in place of the old one, in this transaction: readers see one or the other. */
  private async swap(): Promise<void> {
    await this.client.query(`DROP TABLE IF EXISTS ${qualifiedName(this.ref)}`);
    await this.client.query(`ALTER TABLE ${this.destination!.sql} RENAME TO ${quoteIdent(this.ref.name)}`);
  }

  async abort(): Promise<void> {
    if (this.done) return;
    await this.rollback(undefined);
  }

  private async rollback(cause: unknown): Promise<void> {
    this.done = true;
    this.onFinished();
    const copy = this.copy;
    this.copy = undefined;
    try {
      if (copy) {
        // CopyFail makes the server drop what this COPY sent; the transaction then rolls back.
        await copy.query.fail("sqlload aborted the commit unit");
      }
      await this.client.query("ROLLBACK");
      this.client.release();
    } catch (error) {
      // A connection that cannot roll back is closed: the server rolls back what it held.
      this.client.release((error ?? cause) as Error);
    }
  }
}

/**
 * `INSERT … ON CONFLICT (key)` needs a unique index on exactly those columns; sqlload creates
 * one named `<table>__sqlload_pk` unless one exists. Existing duplicates make this fail (SL301).
 */
async function ensureUniqueIndex(client: pg.PoolClient, ref: TargetTableRef, key: readonly string[]): Promise<void> {
  const found = await client.query(
    `SELECT 1 FROM pg_index i
     JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname = $2 AND i.indisunique AND i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL
       AND (SELECT array_agg(a.attname::text COLLATE "C" ORDER BY a.attname::text COLLATE "C")
            FROM unnest(i.indkey::int2[]) k JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k)
           = (SELECT array_agg(x COLLATE "C" ORDER BY x COLLATE "C") FROM unnest($3::text[]) x)`,
    [ref.schema, ref.name, [...key]],
  );
  if (found.rowCount) return;
  const name = derivedName(ref.name, "__sqlload_pk");
  await client.query(`CREATE UNIQUE INDEX ${quoteIdent(name)} ON ${qualifiedName(ref)} (${key.map(quoteIdent).join(", ")})`);
}
