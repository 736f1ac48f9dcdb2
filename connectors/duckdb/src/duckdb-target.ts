import type { DuckDBConnection, DuckDBResultReader } from "@duckdb/node-api";
import {
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type CursorKind,
  type CursorValue,
  formatLogicalType,
  formatTargetTable,
  holds,
  type RunLogReadOptions,
  type RunLogRow,
  SqlloadError,
  type TargetCapabilities,
  type TargetConnection,
  type TargetTableInfo,
  type TargetTableRef,
} from "@sqlload/core";
import { duckdbTargetCapabilities } from "./duckdb-capabilities.js";
import { describeRelation, describeWithCollations, type RelationColumn, relationTypes } from "./duckdb-catalog.js";
import { beginCommitUnit } from "./duckdb-commit-unit.js";
import type { DuckDBDatabase } from "./duckdb-database.js";
import {
  duckdbTypeSql,
  findColumn,
  fitsColumn,
  isCanonical,
  logicalTypeOf,
  qualifiedTable,
  quoteIdent,
} from "./duckdb-dialect.js";
import { dropReloadBuild, reloadBuildTable, swapReloadBuild } from "./duckdb-reload-build.js";
import { selectRunLog } from "./duckdb-run-log.js";
import { cursorFromDuckDB } from "./duckdb-values.js";
import { wrapDuckDBError } from "./errors.js";

/** The open file and the connection metadata goes through. */
interface Opened {
  readonly db: DuckDBDatabase;
  readonly connection: DuckDBConnection;
}

/**
 * The DuckDB target. Metadata goes through one connection; each commit unit gets a connection
 * and a transaction of its own. No `lockTable`: DuckDB lets one process at a time open a file for
 * writing, so another run cannot reach the table while this one holds the file (its open fails
 * with SL306).
 *
 * Made while its file is still opening (DuckDB opens it on a thread of its own, some 20 ms):
 * `connect()` waits for the file and reports its failure; every other method waits for it too.
 */
export class DuckDBTarget implements TargetConnection {
  private constructor(
    private readonly opened: Promise<Opened>,
    readonly capabilities: TargetCapabilities,
  ) {}

  /** A target on the database `opening` gives, which has begun opening its file. */
  static opening(opening: Promise<DuckDBDatabase>, nativeFileReads = true): DuckDBTarget {
    const opened = opening.then(async (db) => {
      try {
        return { db, connection: await db.connect() };
      } catch (error) {
        await db.release();
        throw error;
      }
    });
    // Reported by connect() or the first use, whichever comes.
    opened.catch(() => {});
    return new DuckDBTarget(opened, duckdbTargetCapabilities(nativeFileReads));
  }

  async connect(): Promise<void> {
    await this.opened;
  }

  async describeTable(ref: TargetTableRef): Promise<TargetTableInfo | null> {
    const { db, connection } = await this.opened;
    return this.guard(ref, "reading the columns of", async () => {
      const side = await Promise.all([db.connect(), db.connect()]);
      try {
        const described = await describeWithCollations([connection, ...side], ref.schema, ref.name);
        return described && { columns: described.columns.map(toColumn), collations: described.collations };
      } finally {
        for (const c of side) db.disconnect(c);
      }
    });
  }

  async maxCursor(ref: TargetTableRef, column: string, kind: CursorKind): Promise<CursorValue | null> {
    const { connection } = await this.opened;
    return this.guard(ref, "reading the maximum of", async () => {
      // max() on VARCHAR compares bytes, which for UTF-8 is code point order. DuckDB's binder
      // matches the name as the catalog does (case-insensitively) and max() keeps the column's
      // type, so the table is described only when the query fails: to tell a missing column.
      let reader: DuckDBResultReader;
      try {
        reader = await connection.runAndReadAll(`SELECT max(${quoteIdent(column)}) AS m FROM ${qualifiedTable(ref)}`);
      } catch (error) {
        const columns = await relationTypes(connection, ref.schema, ref.name);
        if (!columns || !findColumn(columns, column)) return null;
        throw error;
      }
      const value = reader.getRows()[0]?.[0];
      if (value === null || value === undefined) return null;
      const type = reader.columnType(0);
      const cursor = cursorFromDuckDB(kind, type, value);
      if (!cursor) {
        throw new SqlloadError(
          "SL302",
          `table ${formatTargetTable(ref)} column "${column}" is ${formatLogicalType(logicalTypeOf(type))}, not a ${kind} cursor`,
          { table: formatTargetTable(ref) },
        );
      }
      return cursor;
    });
  }

  /**
   * Creates the table or adds the columns it lacks, in one transaction, after checking every
   * existing column first, so a type change (SL302) leaves the table as it was. Columns are
   * created nullable whatever the source says: a stricter target would refuse rows the next
   * schema allows, and loosening a constraint later is a migration sqlload should not need.
   */
  async ensureTable(
    ref: TargetTableRef,
    columns: readonly Column[],
    _options: { readonly primaryKey?: readonly string[] | undefined },
  ): Promise<readonly Column[]> {
    // A connection of its own: a transaction on the shared metadata connection would take in the
    // statements other tables' loads run on it meanwhile.
    const { db } = await this.opened;
    return db.serialize(() =>
      this.guard(ref, "creating or evolving", async () => {
        const connection = await db.connect();
        try {
          const existing = await describeRelation(connection, ref.schema, ref.name);
          const statements = existing ? evolveStatements(ref, existing, columns) : createStatements(ref, columns);
          // Nothing to change: the table is as described (this connection holds the target's DDL turn).
          if (existing && statements.length === 0) return existing.map(toColumn);
          await connection.run("BEGIN TRANSACTION");
          try {
            for (const sql of statements) await connection.run(sql);
            await connection.run("COMMIT");
          } catch (error) {
            await connection.run("ROLLBACK").catch(() => undefined);
            throw error;
          }
          return ((await describeRelation(connection, ref.schema, ref.name)) ?? []).map(toColumn);
        } finally {
          db.disconnect(connection);
        }
      }),
    );
  }

  async begin(ref: TargetTableRef, options: CommitUnitOptions): Promise<CommitUnit> {
    return beginCommitUnit((await this.opened).db, ref, options);
  }

  reloadBuildTable(ref: TargetTableRef): TargetTableRef {
    return reloadBuildTable(ref);
  }

  async swapReloadBuild(ref: TargetTableRef, row: RunLogRow): Promise<void> {
    const { db } = await this.opened;
    return this.guard(ref, "swapping in the reload of", () => swapReloadBuild(db, ref, row));
  }

  async dropReloadBuild(ref: TargetTableRef): Promise<void> {
    const { db } = await this.opened;
    return this.guard(ref, "dropping the reload build of", () => dropReloadBuild(db, ref));
  }

  async readRunLog(ref: TargetTableRef, options?: RunLogReadOptions): Promise<readonly RunLogRow[]> {
    const { db } = await this.opened;
    // A connection of its own: a load reads the log and describes the table at once (readTargetsEarly).
    return this.guard(ref, "reading the run log of", async () => {
      const connection = await db.connect();
      try {
        return await selectRunLog(connection, ref.schema, ref.name, { last: options?.last });
      } finally {
        db.disconnect(connection);
      }
    });
  }

  async close(): Promise<void> {
    // A file that failed to open has released itself.
    const opened = await this.opened.catch(() => undefined);
    await opened?.db.release();
  }

  private async guard<T>(ref: TargetTableRef, what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const label = formatTargetTable(ref);
      throw wrapDuckDBError(error, "target", `${what} ${label} failed`, label);
    }
  }
}

function createStatements(ref: TargetTableRef, columns: readonly Column[]): string[] {
  const defs = columns.map((c) => `${quoteIdent(c.name)} ${duckdbTypeSql(c.type)}`).join(", ");
  return [`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(ref.schema)}`, `CREATE TABLE ${qualifiedTable(ref)} (${defs})`];
}

/** ADD COLUMN for each new column, ALTER … SET DATA TYPE for each lossless widening; throws SL302 before any change when an existing one cannot take the new type. */
function evolveStatements(ref: TargetTableRef, existing: readonly RelationColumn[], columns: readonly Column[]): string[] {
  const label = formatTargetTable(ref);
  const statements: string[] = [];
  for (const column of columns) {
    const found = findColumn(existing, column.name);
    if (!found) {
      statements.push(`ALTER TABLE ${qualifiedTable(ref)} ADD COLUMN ${quoteIdent(column.name)} ${duckdbTypeSql(column.type)}`);
    } else if (fitsColumn(found.type, column.type)) {
      // The column holds the new values as it is.
    } else if (holds(column.type, logicalTypeOf(found.type)) && isCanonical(found.type)) {
      // A widening that loses nothing: DuckDB converts the stored values in place, in this transaction.
      statements.push(
        `ALTER TABLE ${qualifiedTable(ref)} ALTER COLUMN ${quoteIdent(column.name)} SET DATA TYPE ${duckdbTypeSql(column.type)}`,
      );
    } else {
      throw new SqlloadError(
        "SL302",
        `table ${label} column "${found.name}" changed type from ${formatLogicalType(logicalTypeOf(found.type))} to ${formatLogicalType(column.type)} (the DuckDB column is ${found.type.toString()}, which cannot hold ${duckdbTypeSql(column.type)} values)`,
        { table: label },
      );
    }
  }
  return statements;
}

function toColumn(column: RelationColumn): Column {
  return { name: column.name, type: logicalTypeOf(column.type), nullable: column.nullable };
}
