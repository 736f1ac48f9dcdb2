import { randomBytes } from "node:crypto";
import {
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type CursorKind,
  type CursorValue,
  defaultTargetCapabilities,
  formatLogicalType,
  formatTargetTable,
  HeldTables,
  type PlanNoteContext,
  parseDateDays,
  type RunLogReadOptions,
  type RunLogRow,
  SqlloadError,
  type TargetCapabilities,
  type TargetConnection,
  type TargetTableInfo,
  type TargetTableRef,
} from "@sqlload/core";
import { guardTable, snowflakeErrorKind, wrapSnowflakeError } from "./errors.js";
import { describeColumns, ensureSchema } from "./snowflake-catalog.js";
import { createTableSql, SnowflakeCommitUnit } from "./snowflake-commit-unit.js";
import { maxExpression, qualifiedTable, quoteIdent } from "./snowflake-dialect.js";
import { dropLeftovers } from "./snowflake-leftovers.js";
import { acquireTableLock, DEFAULT_LOCK_TIMING, type LockTiming } from "./snowflake-lock.js";
import { snowflakePlanNotes } from "./snowflake-plan-notes.js";
import { selectRunLog } from "./snowflake-run-log.js";
import { SnowflakeSession, type SnowflakeSettings } from "./snowflake-session.js";
import { type CatalogColumn, fitsColumn, logicalTypeOf, snowflakeTypeSql } from "./snowflake-types.js";

/** Which Snowflake types can hold each cursor kind. */
const CURSOR_TYPES: Readonly<Record<CursorKind, readonly string[]>> = {
  integer: ["NUMBER", "DECIMAL", "NUMERIC"],
  date: ["DATE"],
  timestamp: ["TIMESTAMP_NTZ", "TIMESTAMP_TZ", "TIMESTAMP_LTZ"],
  text: ["TEXT", "VARCHAR", "STRING"],
};

/**
 * The Snowflake target: commit model `transactional`, each unit one transaction in a session of
 * its own (see SnowflakeCommitUnit). Catalog reads, maxima, DDL and locks use one shared session.
 */
export class SnowflakeTarget implements TargetConnection {
  /** What every connection declares; the connector declares the same before connecting. */
  static readonly capabilities: TargetCapabilities = {
    ...defaultTargetCapabilities,
    commitModel: "transactional",
    codePointText: true,
    locking: true,
    // `ALTER TABLE … SWAP WITH` is DDL, which commits any open transaction first.
    replaceRecordAfterSwap: true,
  };
  readonly capabilities: TargetCapabilities = SnowflakeTarget.capabilities;
  private readonly token = randomBytes(4).toString("hex");
  private readonly schemas = new Set<string>();
  private readonly locks = new Set<{ release(): Promise<void> }>();
  /** The columns of the tables this connection holds the lock of, shared by a load's requests. */
  private readonly held = new HeldTables<CatalogColumn[]>();

  private constructor(
    readonly session: SnowflakeSession,
    readonly settings: SnowflakeSettings,
    private readonly lockTiming: LockTiming,
  ) {}

  static async open(settings: SnowflakeSettings, lockTiming: LockTiming = DEFAULT_LOCK_TIMING): Promise<SnowflakeTarget> {
    try {
      return new SnowflakeTarget(await SnowflakeSession.open(settings), settings, lockTiming);
    } catch (error) {
      throw wrapSnowflakeError(error, `connecting to Snowflake account ${settings.account} as ${settings.user} failed`);
    }
  }

  async describeTable(ref: TargetTableRef): Promise<TargetTableInfo | null> {
    // A load's first look at the table: always from the catalog.
    this.held.forget(ref);
    const columns = await guardTable(ref, "reading the columns of", () => this.heldColumns(ref));
    return columns ? { columns: columns.map(toColumn) } : null;
  }

  /** The table's columns, read once for a load while this connection holds its lock (HeldTables). */
  private heldColumns(ref: TargetTableRef): Promise<CatalogColumn[] | null> {
    return this.held.get(ref, () => this.columns(ref));
  }

  /** The table's catalog rows, collations included (what `plan` warns about). */
  columns(ref: TargetTableRef): Promise<CatalogColumn[] | null> {
    return describeColumns(this.session, this.settings.database, ref);
  }

  /**
   * What `plan` should note about the table's cursor (see snowflakePlanNotes): its collation, and
   * a TIMESTAMP_NTZ cursor where the user's sessions default to a zone other than UTC.
   */
  async planNotes(ref: TargetTableRef, context: PlanNoteContext = {}): Promise<string[]> {
    const { cursor } = context;
    if (!cursor) return [];
    const { column, kind } = cursor;
    return guardTable(ref, "reading plan notes for", async () => {
      const cursorColumn = (await this.columns(ref))?.find((c) => c.name === column);
      const rows = await this.session.runRetrying("SHOW PARAMETERS LIKE 'TIMEZONE' IN USER");
      return snowflakePlanNotes({ cursorColumn, kind, defaultTimezone: rows[0]?.value ?? undefined });
    });
  }

  async maxCursor(ref: TargetTableRef, column: string, kind: CursorKind): Promise<CursorValue | null> {
    return guardTable(ref, "reading the maximum of", async () => {
      const found = (await this.heldColumns(ref))?.find((c) => c.name === column);
      if (!found) return null;
      const type = found.dataType.toUpperCase();
      if (!CURSOR_TYPES[kind].includes(type) || (kind === "integer" && (found.scale ?? 0) !== 0)) {
        throw new SqlloadError(
          "SL302",
          `table ${formatTargetTable(ref)} column "${found.name}" is ${type} in Snowflake (${formatLogicalType(logicalTypeOf(found))}), not a ${kind} cursor`,
          { table: formatTargetTable(ref) },
        );
      }
      const rows = await this.session.runRetrying(
        `SELECT ${maxExpression(quoteIdent(column), kind)} AS "v" FROM ${qualifiedTable(ref)}`,
      );
      const value = rows[0]?.v;
      if (value === null || value === undefined) return null;
      switch (kind) {
        case "integer":
          return { kind, value: BigInt(value) };
        case "date":
          return { kind, value: parseDateDays(value) as number };
        case "timestamp":
          return { kind, value: BigInt(value) };
        case "text":
          return { kind, value };
      }
    });
  }

  /**
   * Creates the table, or adds the columns it lacks (nullable: its rows have no value for them)
   * after every column was checked, so a type change (SL302) alters nothing. DDL in Snowflake
   * commits at once; no unit's transaction is open in this session.
   */
  async ensureTable(ref: TargetTableRef, columns: readonly Column[]): Promise<readonly Column[]> {
    return guardTable(ref, "creating or evolving", async () => {
      await this.schema(ref.schema);
      const existing = await this.heldColumns(ref);
      if (!existing) {
        await this.session.runRetrying(createTableSql(ref, { columns }).replace(/^CREATE TABLE /, "CREATE TABLE IF NOT EXISTS "));
      } else {
        const label = formatTargetTable(ref);
        const added: string[] = [];
        for (const column of columns) {
          const found = existing.find((c) => c.name === column.name);
          if (!found) added.push(`${quoteIdent(column.name)} ${snowflakeTypeSql(column.type)}`);
          else if (!fitsColumn(found, column.type)) {
            throw new SqlloadError(
              "SL302",
              `table ${label} column "${found.name}" changed type from ${formatLogicalType(logicalTypeOf(found))} to ${formatLogicalType(column.type)} (the Snowflake column is ${found.dataType}, which cannot hold ${snowflakeTypeSql(column.type)} values)`,
              { table: label },
            );
          }
        }
        // Unchanged, the table is what was just read: no second catalog query.
        if (added.length === 0) return existing.map(toColumn);
        for (const def of added) await this.session.runRetrying(`ALTER TABLE ${qualifiedTable(ref)} ADD COLUMN ${def}`);
      }
      // Created or altered: read again.
      this.held.forget(ref);
      return ((await this.heldColumns(ref)) ?? []).map(toColumn);
    });
  }

  async begin(ref: TargetTableRef, options: CommitUnitOptions): Promise<CommitUnit> {
    const exists = await guardTable(ref, "starting a commit on", async () => {
      await this.schema(ref.schema);
      const found = (await this.heldColumns(ref)) !== null;
      // A replacing unit's commit swaps a new table in: read it again after.
      if (options.strategy === "replace") this.held.forget(ref);
      return found;
    });
    let session: SnowflakeSession;
    try {
      session = await SnowflakeSession.open(this.settings);
    } catch (error) {
      throw wrapSnowflakeError(error, `opening a session for ${formatTargetTable(ref)} failed`, formatTargetTable(ref));
    }
    return SnowflakeCommitUnit.open(session, ref, options, exists, this.settings.bulkLoadRows);
  }

  async readRunLog(ref: TargetTableRef, options?: RunLogReadOptions): Promise<readonly RunLogRow[]> {
    return guardTable(ref, "reading the run log of", async () => {
      // Read at once, a statement fewer than asking the catalog first: no log yet reads as none.
      try {
        return await selectRunLog(this.session, ref, options?.last);
      } catch (error) {
        if (snowflakeErrorKind(error) === "missing_table") return [];
        throw error;
      }
    });
  }

  async lockTable(ref: TargetTableRef): Promise<{ release(): Promise<void> }> {
    const lock = await guardTable(ref, "locking", async () => {
      await this.schema(ref.schema);
      const lock = await acquireTableLock(this.session, ref, this.token, this.lockTiming);
      try {
        await dropLeftovers(this.session, this.settings.database, ref);
      } catch (error) {
        await lock.release().catch(() => undefined);
        throw error;
      }
      return lock;
    });
    this.locks.add(lock);
    this.held.hold(ref);
    return {
      release: async () => {
        this.locks.delete(lock);
        this.held.release(ref);
        await guardTable(ref, "unlocking", () => lock.release());
      },
    };
  }

  async close(): Promise<void> {
    for (const lock of this.locks) await lock.release().catch(() => undefined);
    this.locks.clear();
    await this.session.close();
  }

  private async schema(name: string): Promise<void> {
    if (this.schemas.has(name)) return;
    await ensureSchema(this.session, name);
    this.schemas.add(name);
  }
}

function toColumn(column: CatalogColumn): Column {
  return { name: column.name, type: logicalTypeOf(column), nullable: column.nullable };
}
