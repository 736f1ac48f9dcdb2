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
  parseCursor,
  type RunLogReadOptions,
  type RunLogRow,
  SqlloadError,
  type TargetCapabilities,
  type TargetConnection,
  type TargetTableInfo,
  type TargetTableRef,
} from "@sqlload/core";
import { sweepFolder } from "./databricks-bulk-load.js";
import { type CommitModelChoice, collationWarning, commitModelNote } from "./databricks-commit-model.js";
import { type BulkPath, DatabricksCommitUnit, type UnitContext } from "./databricks-commit-unit.js";
import { qualifiedSchema, qualifiedTable, quoteIdentifier } from "./databricks-dialect.js";
import { acquireTableLock } from "./databricks-lock.js";
import { maxCursorSql } from "./databricks-range.js";
import { ensureRunLogSql, readRunLog } from "./databricks-run-log.js";
import type { DatabricksSession } from "./databricks-session.js";
import { addColumnsSql, createTableSql } from "./databricks-statements.js";
import { databricksType, logicalTypeOf, storedColumn } from "./databricks-types.js";
import { tableFolder } from "./databricks-volume.js";
import { databricksError } from "./errors.js";

/**
 * The Databricks target: Delta tables in `catalog`.`schema`, commit units that land as one
 * `BEGIN ATOMIC` block (commit model `transactional`) or data first and the run log right after
 * (`data-then-log`), as `commitModel` chose when the target connected.
 */
export class DatabricksTarget implements TargetConnection {
  readonly capabilities: TargetCapabilities;
  private readonly schemasMade = new Set<string>();
  private readonly runLogsMade = new Set<string>();
  /** The descriptions of the tables this connection holds the lock of, shared by a load's requests. */
  private readonly held = new HeldTables<TargetTableInfo>();
  private readonly foldersSwept = new Set<string>();
  private readonly bulk: BulkPath | undefined;

  constructor(
    readonly session: DatabricksSession,
    readonly catalog: string,
    readonly commitModel: CommitModelChoice,
    /** The bulk path's volume and threshold (see `databricks-bulk-load.ts`); none: every unit uses INSERT. */
    staging?: { readonly volume: string; readonly threshold: number },
  ) {
    this.capabilities = databricksCapabilities(commitModel.atomic);
    this.bulk = staging && {
      threshold: staging.threshold,
      folder: (ref) => tableFolder(staging.volume, ref),
      sweep: async (ref) => {
        const folder = tableFolder(staging.volume, ref);
        if (this.foldersSwept.has(folder)) return;
        await this.guard(`sweeping the staged files of ${formatTargetTable(ref)}`, () => sweepFolder(this.session, folder));
        this.foldersSwept.add(folder);
      },
    };
  }

  async describeTable(ref: TargetTableRef): Promise<TargetTableInfo | null> {
    // A load's first look at the table: always from the catalog.
    this.held.forget(ref);
    return this.heldDescription(ref);
  }

  /** The table's description, read once for a load while this connection holds its lock (HeldTables). */
  private heldDescription(ref: TargetTableRef): Promise<TargetTableInfo | null> {
    return this.held.get(ref, () => this.readDescription(ref));
  }

  private async readDescription(ref: TargetTableRef): Promise<TargetTableInfo | null> {
    const rows = await this.guard(`describing ${formatTargetTable(ref)}`, () =>
      this.session.query(
        `SELECT column_name, full_data_type, is_nullable FROM ${quoteIdentifier(this.catalog)}.information_schema.columns WHERE lower(table_schema) = lower(:schema) AND lower(table_name) = lower(:table) ORDER BY ordinal_position`,
        { schema: ref.schema, table: ref.name },
      ),
    );
    if (rows.length === 0) return null;
    return {
      columns: rows.map((r) => ({
        name: r.column_name ?? "",
        type: logicalTypeOf(r.full_data_type ?? ""),
        nullable: r.is_nullable !== "NO",
      })),
    };
  }

  async maxCursor(ref: TargetTableRef, column: string, kind: CursorKind): Promise<CursorValue | null> {
    let rows: Awaited<ReturnType<DatabricksSession["query"]>>;
    try {
      rows = await this.session.query(`SELECT ${maxCursorSql(column, kind)} AS m FROM ${qualifiedTable(this.catalog, ref)}`);
    } catch (error) {
      if (/^\[(TABLE_OR_VIEW_NOT_FOUND|SCHEMA_NOT_FOUND)\]/.test((error as Error).message ?? "")) return null;
      throw this.wrap(error, `reading the maximum of ${column} in ${formatTargetTable(ref)}`);
    }
    const value = rows[0]?.m ?? null;
    if (value === null) return null;
    if (kind === "date") return { kind: "date", value: Number(value) };
    if (kind === "timestamp") return { kind: "timestamp", value: BigInt(value) };
    return parseCursor(kind, value);
  }

  async ensureTable(ref: TargetTableRef, columns: readonly Column[], _options: EnsureTableOptions): Promise<readonly Column[]> {
    const name = formatTargetTable(ref);
    const existing = await this.heldDescription(ref);
    if (!existing) {
      await this.ensureSchema(ref.schema);
      await this.guard(`creating ${name}`, () =>
        this.session.execute(createTableSql(qualifiedTable(this.catalog, ref), columns, this.commitModel.atomic)),
      );
    } else {
      const have = new Map(existing.columns.map((c) => [c.name.toLowerCase(), c]));
      for (const column of columns) {
        const old = have.get(column.name.toLowerCase());
        const wanted = storedColumn(column);
        if (old && formatLogicalType(old.type) !== formatLogicalType(wanted.type)) {
          throw new SqlloadError(
            "SL302",
            `${name}: column ${column.name} is ${databricksType(old.type)} on Databricks, and would now be ${databricksType(column.type)}`,
            { table: name },
          );
        }
      }
      const missing = columns.filter((c) => !have.has(c.name.toLowerCase()));
      // Unchanged, the table is what was just read: no second catalog query.
      if (missing.length === 0) return existing.columns;
      await this.guard(`adding columns to ${name}`, () =>
        this.session.execute(addColumnsSql(qualifiedTable(this.catalog, ref), missing)),
      );
    }
    // Created or altered: read again (describeTable forgets what was read before).
    return (await this.describeTable(ref))?.columns ?? columns.map(storedColumn);
  }

  /**
   * What `plan` should say about this target for a table: which commit model applies and why,
   * and a warning per column whose collation is not code point order. Core has no hook for
   * target notes yet; the CLI's plan can print these once it does.
   */
  async planNotes(ref: TargetTableRef): Promise<string[]> {
    const rows = await this.guard(`reading the collations of ${formatTargetTable(ref)}`, () =>
      this.session.query(
        `SELECT column_name, collation_name FROM ${quoteIdentifier(this.catalog)}.information_schema.columns WHERE lower(table_schema) = lower(:schema) AND lower(table_name) = lower(:table) AND collation_name IS NOT NULL ORDER BY ordinal_position`,
        { schema: ref.schema, table: ref.name },
      ),
    );
    const warnings = rows
      .map((r) => collationWarning(r.column_name ?? "", r.collation_name ?? ""))
      .filter((w): w is string => !!w);
    return [commitModelNote(this.commitModel), ...warnings];
  }

  async begin(ref: TargetTableRef, options: CommitUnitOptions): Promise<CommitUnit> {
    return new DatabricksCommitUnit(this.unitContext(), ref, options);
  }

  async readRunLog(ref: TargetTableRef, options?: RunLogReadOptions): Promise<readonly RunLogRow[]> {
    const rows = await this.guard(`reading the run log of ${formatTargetTable(ref)}`, () =>
      readRunLog(this.session, this.catalog, ref, formatTargetTable(ref), options?.last),
    );
    // Records read are a log that exists: a commit need not create it again. None may be a log
    // deleted since this connection made it (SPEC §11: safe), which the next commit makes again.
    if (rows.length > 0) this.runLogsMade.add(ref.schema);
    else this.runLogsMade.delete(ref.schema);
    return rows;
  }

  async lockTable(ref: TargetTableRef): Promise<{ release(): Promise<void> }> {
    await this.ensureSchema(ref.schema);
    const lock = await this.guard(`locking ${formatTargetTable(ref)}`, () =>
      acquireTableLock(this.session, this.catalog, ref.schema, ref.name),
    );
    this.held.hold(ref);
    return {
      release: async () => {
        this.held.release(ref);
        await lock.release();
      },
    };
  }

  async close(): Promise<void> {
    await this.session.close();
  }

  private unitContext(): UnitContext {
    return {
      session: this.session,
      catalog: this.catalog,
      atomic: this.commitModel.atomic,
      ensureRunLog: (schema) => this.ensureRunLog(schema),
      ensureSchema: (schema) => this.ensureSchema(schema),
      wrap: (error, action) => this.wrap(error, action),
      bulk: this.bulk,
    };
  }

  private async ensureSchema(schema: string): Promise<void> {
    if (this.schemasMade.has(schema)) return;
    await this.guard(`creating the schema ${schema}`, () =>
      this.session.execute(`CREATE SCHEMA IF NOT EXISTS ${qualifiedSchema(this.catalog, schema)}`),
    );
    this.schemasMade.add(schema);
  }

  private async ensureRunLog(schema: string): Promise<void> {
    if (this.runLogsMade.has(schema)) return;
    await this.ensureSchema(schema);
    await this.guard(`creating the run log in ${schema}`, () =>
      this.session.execute(ensureRunLogSql(this.catalog, schema, this.commitModel.atomic)),
    );
    this.runLogsMade.add(schema);
  }

  private wrap(error: unknown, action: string): SqlloadError {
    return databricksError(error, action, { scrub: this.session.scrub });
  }

  private async guard<T>(action: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.wrap(error, action);
    }
  }
}

/** What a Databricks target can do under each commit model (see `databricks-commit-model.ts`). */
export function databricksCapabilities(atomic: boolean): TargetCapabilities {
  return {
    ...defaultTargetCapabilities,
    commitModel: atomic ? "transactional" : "data-then-log",
    codePointText: true,
    locking: true,
    // `CREATE OR REPLACE … AS SELECT` is a Delta commit of its own, outside any BEGIN ATOMIC block.
    replaceRecordAfterSwap: true,
    ...(atomic ? {} : { loggedTablesSetting: 'transactions = "atomic"' }),
  };
}
