import { resolve } from "node:path";
import {
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type CursorKind,
  type CursorValue,
  defaultTargetCapabilities,
  formatLogicalType,
  formatTargetTable,
  type RunLogReadOptions,
  type RunLogRow,
  SqlloadError,
  type TargetCapabilities,
  type TargetConnection,
  type TargetTableInfo,
  type TargetTableRef,
} from "@sqlload/core";
import { wrapSqliteError } from "./errors.js";
import { beginCommitUnit, keyIndexName } from "./sqlite-commit-unit.js";
import { createTableSql, cursorFromSqlite, declaredType, fits, logicalTypeOf, quoteIdent } from "./sqlite-dialect.js";
import { SchemaFile, type SqliteDatabase, schemaFile } from "./sqlite-files.js";
import { selectRunLog, tableExists } from "./sqlite-run-log.js";

/**
 * A folder of SQLite files as the target, one file per schema. Every commit unit is one
 * transaction (`transactional`), and SQLite compares text byte by byte in UTF-8, which is code
 * point order (`codePointText`); it has no `lockTable` (`locking: false`): the defaults, spelt out
 * so a reader of the template sees them.
 */
export class SqliteTarget implements TargetConnection {
  readonly capabilities: TargetCapabilities = {
    ...defaultTargetCapabilities,
    commitModel: "transactional",
    codePointText: true,
    locking: false,
  };
  private readonly files = new Map<string, SchemaFile>();
  private readonly folder: string;

  constructor(folder: string, projectDir: string) {
    this.folder = resolve(projectDir, folder);
  }

  private file(schema: string): SchemaFile {
    const path = schemaFile(this.folder, schema);
    let file = this.files.get(path);
    if (!file) this.files.set(path, (file = new SchemaFile(path)));
    return file;
  }

  async describeTable(ref: TargetTableRef): Promise<TargetTableInfo | null> {
    return this.guard(ref, "reading the columns of", async () => {
      const columns = await this.file(ref.schema).read((db) => describe(db, ref.name));
      return columns ? { columns } : null;
    });
  }

  async maxCursor(ref: TargetTableRef, column: string, kind: CursorKind): Promise<CursorValue | null> {
    return this.guard(ref, "reading the maximum of", async () => {
      const max = await this.file(ref.schema).read((db) => {
        if (!describe(db, ref.name)?.some((c) => c.name === column)) return null;
        // max() compares with the column's collation, BINARY: UTF-8 bytes, so code point order.
        return (db.get(`SELECT max(${quoteIdent(column)}) AS m FROM ${quoteIdent(ref.name)}`) as { m: unknown }).m;
      });
      if (max === null || max === undefined) return null;
      const cursor = cursorFromSqlite(kind, max);
      if (!cursor) {
        throw new SqlloadError(
          "SL302",
          `table ${formatTargetTable(ref)} column "${column}" does not hold ${kind} cursor values`,
          {
            table: formatTargetTable(ref),
          },
        );
      }
      return cursor;
    });
  }

  /**
   * Creates the table or adds the columns it lacks, in one transaction, after checking every
   * existing column first, so a type change (SL302) changes nothing.
   */
  async ensureTable(
    ref: TargetTableRef,
    columns: readonly Column[],
    options: { readonly primaryKey?: readonly string[] | undefined },
  ): Promise<readonly Column[]> {
    const label = formatTargetTable(ref);
    const writer = await this.file(ref.schema).acquire();
    const { db } = writer;
    try {
      const existing = describe(db, ref.name);
      const table = quoteIdent(ref.name);
      const statements: string[] = [];
      if (!existing) {
        statements.push(createTableSql(table, columns));
      } else {
        for (const column of columns) {
          const found = existing.find((c) => c.name === column.name);
          if (!found) {
            statements.push(
              `ALTER TABLE ${table} ADD COLUMN ${quoteIdent(column.name)} ${quoteIdent(declaredType(column.type))}`,
            );
          } else if (!fits(found.type, column.type)) {
            throw new SqlloadError(
              "SL302",
              `table ${label} column "${column.name}" changed type from ${formatLogicalType(found.type)} to ${formatLogicalType(column.type)}`,
              { table: label },
            );
          }
        }
      }
      const keys = options.primaryKey ?? [];
      if (keys.length > 0 && columns.some((c) => keys.includes(c.name))) {
        statements.push(
          `CREATE INDEX IF NOT EXISTS ${quoteIdent(keyIndexName(ref.name))} ON ${table} (${keys.map(quoteIdent).join(", ")})`,
        );
      }
      const described = () => describe(db, ref.name) ?? [];
      if (statements.length === 0) return described();
      db.exec("BEGIN IMMEDIATE");
      for (const sql of statements) db.exec(sql);
      db.exec("COMMIT");
      const after = described();
      writer.publish();
      return after;
    } catch (error) {
      throw wrapSqliteError(error, `creating or evolving ${label} failed`, label);
    } finally {
      writer.release();
    }
  }

  begin(ref: TargetTableRef, options: CommitUnitOptions): Promise<CommitUnit> {
    return beginCommitUnit(this.file(ref.schema), ref, options);
  }

  async readRunLog(ref: TargetTableRef, options?: RunLogReadOptions): Promise<readonly RunLogRow[]> {
    return this.guard(
      ref,
      "reading the run log of",
      async () => (await this.file(ref.schema).read((db) => selectRunLog(db, ref.name, options?.last))) ?? [],
    );
  }

  async close(): Promise<void> {
    this.files.clear();
  }

  private async guard<T>(ref: TargetTableRef, what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const label = formatTargetTable(ref);
      throw wrapSqliteError(error, `${what} ${label} failed`, label);
    }
  }
}

/** The table's columns in order, or null when it does not exist. */
function describe(db: SqliteDatabase, name: string): Column[] | null {
  if (!tableExists(db, name)) return null;
  const rows = db.all("SELECT name, type FROM pragma_table_info(?)", [name]) as { name: string; type: string }[];
  return rows.map((r) => ({ name: r.name, type: logicalTypeOf(r.type), nullable: true }));
}
