import {
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type CursorRange,
  formatTargetTable,
  type RecordBatch,
  type RunLogRow,
  SqlloadError,
  type TargetTableRef,
} from "@sqlload/core";
import { wrapSqliteError } from "./errors.js";
import { createTableSql, quoteIdent, rowsOf, sqliteRange } from "./sqlite-dialect.js";
import type { SchemaFile, SqliteDatabase, Writer } from "./sqlite-files.js";
import { ensureRunLogTable, insertRunLog, tableExists } from "./sqlite-run-log.js";

/** Where `replace` builds the new table; `commit` renames it over the old one. */
export function buildTableName(name: string): string {
  return `${name}__sqlload_new`;
}

/** The index that keeps merges from scanning the table for every row. */
export function keyIndexName(name: string): string {
  return `${name}__sqlload_key`;
}

/**
 * Opens a unit: waits for the schema file's writer (a private copy of the file), then one
 * transaction that everything in the unit runs in, so `commit` lands rows, deletes, the swap and
 * run-log records together, and publishes the copy; `abort` drops all of them. SQLite DDL is
 * transactional too: a `replace` builds its table and renames it inside the same transaction.
 */
export async function beginCommitUnit(file: SchemaFile, ref: TargetTableRef, options: CommitUnitOptions): Promise<CommitUnit> {
  const label = formatTargetTable(ref);
  const writer = await file.acquire();
  const { db } = writer;
  try {
    db.exec("BEGIN IMMEDIATE");
    ensureRunLogTable(db);
    const unit = new SqliteCommitUnit(writer, ref, options, label);
    if (options.strategy === "replace") {
      db.exec(`DROP TABLE IF EXISTS ${quoteIdent(buildTableName(ref.name))}`);
      if (options.columns.length > 0) unit.createBuildTable(options.columns);
    }
    return unit;
  } catch (error) {
    writer.release();
    throw wrapSqliteError(error, `cannot start a commit on ${label}`, label);
  }
}

class SqliteCommitUnit implements CommitUnit {
  private open = true;
  private readonly writeName: string;
  /** Whether the `replace` build table exists yet (it waits for the first batch when no columns were known). */
  private built = false;

  private readonly db: SqliteDatabase;

  constructor(
    private readonly writer: Writer,
    private readonly ref: TargetTableRef,
    private readonly options: CommitUnitOptions,
    private readonly label: string,
  ) {
    this.db = writer.db;
    this.writeName = options.strategy === "replace" ? buildTableName(ref.name) : ref.name;
  }

  createBuildTable(columns: readonly Column[]): void {
    this.db.exec(createTableSql(quoteIdent(this.writeName), columns));
    this.built = true;
  }

  async deleteRange(range: CursorRange, options?: { readonly includeNulls?: boolean }): Promise<void> {
    this.check();
    const cursor = this.options.cursor;
    if (!cursor) throw new SqlloadError("SL900", `deleteRange on ${this.label}, which has no cursor column`);
    // An empty window of a table that does not exist yet: nothing to delete.
    if (!tableExists(this.db, this.writeName)) return;
    const condition = sqliteRange({
      column: cursor.column,
      kind: cursor.kind,
      range,
      includeNulls: options?.includeNulls ?? false,
    });
    this.run(() => this.db.run(`DELETE FROM ${quoteIdent(this.writeName)} WHERE ${condition.sql}`, condition.params));
  }

  async write(batch: RecordBatch): Promise<void> {
    this.check();
    if (batch.length === 0) return;
    this.run(() => {
      if (this.options.strategy === "replace" && !this.built) this.createBuildTable(batch.schema);
      const table = quoteIdent(this.writeName);
      const names = batch.schema.map((c) => quoteIdent(c.name));
      const insert = `INSERT INTO ${table} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`;
      if (this.options.strategy !== "merge") {
        prepared(this.db, [insert], ([put]) => {
          for (const params of rowsOf(batch)) put.run(params);
        });
        return;
      }
      // Upsert: the row a key names is replaced whole. `IS` matches NULL key parts too.
      const keys = this.options.primaryKey ?? [];
      if (keys.length === 0) throw new SqlloadError("SL108", `merge into ${this.label} needs a primary key`);
      const positions = keys.map((k) => {
        const i = batch.schema.findIndex((c) => c.name === k);
        if (i < 0) throw new SqlloadError("SL208", `merge into ${this.label}: the rows have no key column "${k}"`);
        return i;
      });
      const remove = `DELETE FROM ${table} WHERE ${keys.map((k) => `${quoteIdent(k)} IS ?`).join(" AND ")}`;
      prepared(this.db, [remove, insert], ([drop, put]) => {
        for (const params of rowsOf(batch)) {
          drop.run(positions.map((i) => params[i] ?? null));
          put.run(params);
        }
      });
    });
  }

  async appendRunLog(row: RunLogRow): Promise<void> {
    this.check();
    this.run(() => insertRunLog(this.db, this.ref.name, row));
  }

  async commit(): Promise<void> {
    this.check();
    try {
      if (this.options.strategy === "replace" && this.built) {
        const live = quoteIdent(this.ref.name);
        this.db.exec(`DROP TABLE IF EXISTS ${live}`);
        this.db.exec(`ALTER TABLE ${quoteIdent(this.writeName)} RENAME TO ${live}`);
        // Created after the rename: index names are per file, and the old table's went with it.
        const keys = this.options.primaryKey ?? [];
        if (keys.length > 0)
          this.db.exec(`CREATE INDEX ${quoteIdent(keyIndexName(this.ref.name))} ON ${live} (${keys.map(quoteIdent).join(", ")})`);
      }
      this.db.exec("COMMIT");
      this.writer.publish();
    } catch (error) {
      throw wrapSqliteError(error, `committing ${this.label} failed`, this.label);
    } finally {
      this.end();
    }
  }

  async abort(): Promise<void> {
    if (!this.open) return;
    // The copy is dropped with everything the unit did to it.
    this.end();
  }

  private end(): void {
    this.open = false;
    this.writer.release();
  }

  private check(): void {
    if (!this.open) throw new SqlloadError("SL900", `the commit unit of ${this.label} was used after it ended`);
  }

  private run(work: () => unknown): void {
    try {
      work();
    } catch (error) {
      throw wrapSqliteError(error, `writing ${this.label} failed`, this.label);
    }
  }
}

type Statement = ReturnType<SqliteDatabase["prepare"]>;

/** Runs `work` with the statements prepared, and frees them after: the WASM heap does not collect them. */
function prepared<const S extends readonly string[]>(
  db: SqliteDatabase,
  sql: S,
  work: (statements: { readonly [K in keyof S]: Statement }) => void,
): void {
  const statements: Statement[] = [];
  try {
    for (const text of sql) statements.push(db.prepare(text));
    work(statements as unknown as { readonly [K in keyof S]: Statement });
  } finally {
    for (const statement of statements) statement.finalize();
  }
}
