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
  holds,
  type RunLogReadOptions,
  type RunLogRow,
  SqlloadError,
  type TargetCapabilities,
  type TargetConnection,
  type TargetTableInfo,
  type TargetTableRef,
} from "@sqlload/core";
import { type CatalogColumn, type CatalogTable, describeTable, ensureDatabase } from "./clickhouse-catalog.js";
import { ClickHouseCommitUnit, DEFAULT_FLUSH_BYTES } from "./clickhouse-commit-unit.js";
import { qualifiedTable, quoteIdent } from "./clickhouse-dialect.js";
import { createTableSql, PROVISIONAL_COMMENT, sortingColumns } from "./clickhouse-layout.js";
import { acquireTableLock, DEFAULT_LOCK_TIMING, type LockTiming } from "./clickhouse-lock.js";
import type { ClickHouseSession } from "./clickhouse-session.js";
import { TableStage, visibleRunLog } from "./clickhouse-stage.js";
import { clickhouseTypeSql, fitsColumn, logicalTypeOf, parseClickHouseType, unwrapType } from "./clickhouse-types.js";
import { wrapClickHouseError } from "./errors.js";

export interface ClickHouseTargetOptions {
  /** Bytes of Native blocks per insert; default 32 MB. */
  readonly flushBytes?: number;
  readonly lockTiming?: LockTiming;
}

/** Engines whose rows collapse at merge time: reads add FINAL to see one row per key. */
const COLLAPSING = /^(Replicated)?(Replacing|Collapsing|VersionedCollapsing)MergeTree$/;

/**
 * The ClickHouse target: commit model `staged` (see TableStage). Each connection tags what it
 * stages with a random token, so its tables are told apart from a crashed run's leftovers, which
 * `lockTable` (the start of every table's run) finishes or drops. ClickHouse has no schemas: a
 * target table `raw.app__orders` is table `app__orders` of database `raw`, created when missing.
 */
export class ClickHouseTarget implements TargetConnection {
  /** What every connection declares; the connector declares the same before connecting. */
  static readonly capabilities: TargetCapabilities = {
    ...defaultTargetCapabilities,
    commitModel: "staged",
    codePointText: true,
    locking: true,
    // A publish journals its swap before the EXCHANGE and its records go with it: a run killed in
    // between is finished by the next one (TableStage.recover), so the record never stays behind.
    replaceRecordAfterSwap: false,
  };
  readonly capabilities: TargetCapabilities = ClickHouseTarget.capabilities;
  private readonly token = randomBytes(4).toString("hex");
  private readonly stages = new Map<string, TableStage>();
  private readonly locks = new Map<string, { release(): Promise<void> }>();
  private readonly databases = new Set<string>();
  /** The tables this connection holds the lock of, as last read: a load reads each once, not at every step. */
  private readonly held = new HeldTables<CatalogTable>();

  constructor(
    readonly session: ClickHouseSession,
    private readonly options: ClickHouseTargetOptions = {},
  ) {}

  async describeTable(ref: TargetTableRef): Promise<TargetTableInfo | null> {
    // A load's first look at the table: always from the catalog.
    this.held.forget(ref);
    const table = await this.guard(ref, "reading the columns of", () => this.described(ref));
    return table ? { columns: table.columns.map(toColumn) } : null;
  }

  /** The table as this connection holds it (HeldTables), or as the catalog has it now when not locked. */
  private described(ref: TargetTableRef): Promise<CatalogTable | null> {
    return this.held.get(ref, () => describeTable(this.session, ref.schema, ref.name));
  }

  async maxCursor(ref: TargetTableRef, column: string, kind: CursorKind): Promise<CursorValue | null> {
    return this.guard(ref, "reading the maximum of", async () => {
      const table = await this.described(ref);
      const found = table?.columns.find((c) => c.name === column);
      if (!table || !found) return null;
      const expression = maxExpression(quoteIdent(found.name), found.type, kind);
      if (!expression) {
        throw new SqlloadError(
          "SL302",
          `table ${formatTargetTable(ref)} column "${found.name}" is ${found.type} in ClickHouse (${formatLogicalType(logicalTypeOf(found.type))}), not a ${kind} cursor`,
          { table: formatTargetTable(ref) },
        );
      }
      // max() on String compares bytes, which for UTF-8 is code point order.
      const final = COLLAPSING.test(table.engine) ? " FINAL" : "";
      const rows = await this.session.query<{ v: string | number | null }>(
        `SELECT ${expression} AS v FROM ${qualifiedTable(ref)}${final}`,
      );
      const value = rows[0]?.v;
      if (value === null || value === undefined) return null;
      switch (kind) {
        case "integer":
          return { kind, value: BigInt(value) };
        case "date":
          return { kind, value: Number(value) };
        case "timestamp":
          return { kind, value: BigInt(value) };
        case "text":
          return { kind, value: String(value) };
      }
    });
  }

  /**
   * Creates a missing table empty, as a MergeTree ordered by the primary key and marked
   * provisional: `ensureTable` is not told the strategy or the cursor, so the first publish
   * rebuilds it with the engine and sorting key they need (cheaply: it is empty, or holds only
   * what that publish adds). An existing table gets the columns it lacks (as
   * Nullable: its rows have no value for them) and Nullable where the source now allows NULLs,
   * after every column was checked, so a type change (SL302) alters nothing. ClickHouse has no
   * transactional DDL: these changes are visible at once, before any publish.
   */
  async ensureTable(
    ref: TargetTableRef,
    columns: readonly Column[],
    options: { readonly primaryKey?: readonly string[] | undefined },
  ): Promise<readonly Column[]> {
    return this.guard(ref, "creating or evolving", async () => {
      await this.database(ref.schema);
      const existing = await this.described(ref);
      if (!existing) {
        const defs = columns.map((c) => ({ name: c.name, type: planned(c) }));
        const key = (options.primaryKey ?? []).filter((k) => defs.some((c) => c.name === k));
        const layout = { kind: "ddl", columns: defs, engine: "MergeTree", orderBy: key } as const;
        this.held.forget(ref);
        await this.session.command(createTableSql(ref.schema, ref.name, layout, ref.name, PROVISIONAL_COMMENT));
        return ((await this.described(ref))?.columns ?? []).map(toColumn);
      }
      const label = formatTargetTable(ref);
      const key = new Set(sortingColumns(existing.sortingKey));
      const statements: string[] = [];
      for (const column of columns) {
        const found = existing.columns.find((c) => c.name === column.name);
        const name = quoteIdent(column.name);
        if (!found) {
          statements.push(`ALTER TABLE ${qualifiedTable(ref)} ADD COLUMN ${name} ${planned({ ...column, nullable: true })}`);
        } else if (fitsColumn(found.type, column.type)) {
          if (column.nullable && !found.nullable && column.type.kind !== "list" && !key.has(found.name)) {
            // A sorting-key column stays as it is (changing it means rewriting the table); a NULL
            // sent to it fails the write instead of becoming 0.
            statements.push(`ALTER TABLE ${qualifiedTable(ref)} MODIFY COLUMN ${name} ${nullableOf(found.type)}`);
          }
        } else if (holds(column.type, logicalTypeOf(found.type)) && !key.has(found.name)) {
          // A widening that loses nothing: ClickHouse converts the column's parts (a mutation).
          const nullable = found.nullable || column.nullable;
          statements.push(`ALTER TABLE ${qualifiedTable(ref)} MODIFY COLUMN ${name} ${planned({ ...column, nullable })}`);
        } else {
          throw new SqlloadError(
            "SL302",
            `table ${label} column "${found.name}" changed type from ${formatLogicalType(logicalTypeOf(found.type))} to ${formatLogicalType(column.type)} (the ClickHouse column is ${found.type}, which cannot hold ${clickhouseTypeSql(column.type)} values)`,
            { table: label },
          );
        }
      }
      // Unchanged, the table is what was just read: no second catalog query.
      if (statements.length === 0) return existing.columns.map(toColumn);
      this.held.forget(ref);
      for (const sql of statements) await this.session.command(sql);
      return ((await this.described(ref))?.columns ?? []).map(toColumn);
    });
  }

  async begin(ref: TargetTableRef, options: CommitUnitOptions): Promise<CommitUnit> {
    const stage = await this.guard(ref, "starting a commit on", async () => {
      await this.database(ref.schema);
      const stage = this.stage(ref);
      // A run that took no lock still clears leftovers before its first unit (it assumes it is alone).
      if (!stage.recovered && !this.locks.has(key(ref))) await stage.recover();
      return stage;
    });
    return new ClickHouseCommitUnit(this.session, stage, ref, options, this.options.flushBytes ?? DEFAULT_FLUSH_BYTES);
  }

  async publish(ref: TargetTableRef): Promise<void> {
    await this.guard(ref, "publishing", () => this.stage(ref).publish());
  }

  /** The runner's word that a table's run failed: what it staged and did not publish is dropped. */
  async discard(ref: TargetTableRef): Promise<void> {
    await this.guard(ref, "discarding what was staged for", () => this.stage(ref).discard());
  }

  readRunLog(ref: TargetTableRef, options?: RunLogReadOptions): Promise<readonly RunLogRow[]> {
    return this.guard(ref, "reading the run log of", () => visibleRunLog(this.session, ref, options?.last));
  }

  /**
   * The start of a table's run: takes the table's lock, then finishes a publish a crashed run
   * left decided and drops its staging tables. Releasing it ends the run: whatever was staged
   * and not published (a failed or interrupted run) is dropped, so it can never be published by
   * a later call.
   */
  async lockTable(ref: TargetTableRef): Promise<{ release(): Promise<void> }> {
    const id = key(ref);
    const lock = await this.guard(ref, "locking", async () => {
      await this.database(ref.schema);
      return acquireTableLock(this.session, ref.schema, ref.name, this.token, this.options.lockTiming ?? DEFAULT_LOCK_TIMING);
    });
    const stage = this.stage(ref);
    try {
      await this.guard(ref, "cleaning up after an earlier run of", async () => {
        await stage.discard();
        await stage.recover();
      });
    } catch (error) {
      await lock.release().catch(() => undefined);
      throw error;
    }
    this.locks.set(id, lock);
    this.held.hold(ref);
    return {
      release: async () => {
        if (this.locks.get(id) !== lock) return;
        this.locks.delete(id);
        this.held.release(ref);
        try {
          await stage.discard();
        } finally {
          await lock.release();
        }
      },
    };
  }

  async close(): Promise<void> {
    for (const stage of this.stages.values()) await stage.discard().catch(() => undefined);
    for (const lock of this.locks.values()) await lock.release().catch(() => undefined);
    this.locks.clear();
    await this.session.release();
  }

  private stage(ref: TargetTableRef): TableStage {
    const id = key(ref);
    let stage = this.stages.get(id);
    if (!stage) {
      stage = new TableStage(this.session, ref, this.token, {
        read: () => this.described(ref),
        forget: () => this.held.forget(ref),
      });
      this.stages.set(id, stage);
    }
    return stage;
  }

  private async database(name: string): Promise<void> {
    if (this.databases.has(name)) return;
    await ensureDatabase(this.session, name);
    this.databases.add(name);
  }

  private async guard<T>(ref: TargetTableRef, what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const label = formatTargetTable(ref);
      throw wrapClickHouseError(error, `${what} ${label} failed`, { table: label });
    }
  }
}

function key(ref: TargetTableRef): string {
  return `${ref.schema}\u0000${ref.name}`;
}

/** The ClickHouse type a column will be created with. */
function planned(column: Column): string {
  const inner = clickhouseTypeSql(column.type);
  return column.nullable && column.type.kind !== "list" ? `Nullable(${inner})` : inner;
}

/** `T` → `Nullable(T)`; `LowCardinality(T)` → `LowCardinality(Nullable(T))`, the only order ClickHouse accepts. */
function nullableOf(type: string): string {
  const low = /^LowCardinality\((.*)\)$/s.exec(type);
  return low ? `LowCardinality(Nullable(${low[1]}))` : `Nullable(${type})`;
}

function toColumn(column: CatalogColumn): Column {
  return { name: column.name, type: logicalTypeOf(column.type), nullable: column.nullable };
}

/**
 * The SQL reading a column's maximum as the cursor's exact value: integers as text (no 2^53
 * limit), dates as days and timestamps as microseconds since the epoch (whatever the column's
 * time zone), text as it is. Undefined when the column cannot hold that kind of cursor.
 */
function maxExpression(column: string, typeText: string, kind: CursorKind): string | undefined {
  const { type } = unwrapType(parseClickHouseType(typeText));
  const max = `maxOrNull(${column})`;
  switch (kind) {
    case "integer":
      return /^U?Int(8|16|32|64)$/.test(type.name) ? `toString(${max})` : undefined;
    case "date":
      return type.name === "Date" || type.name === "Date32" ? `toInt32(${max})` : undefined;
    case "timestamp":
      if (type.name === "DateTime64") return `toString(toUnixTimestamp64Micro(${max}))`;
      if (type.name === "DateTime") return `toString(toInt64(toUnixTimestamp(${max})) * 1000000)`;
      return undefined;
    case "text":
      return /^(String|FixedString)$/.test(type.name) ? max : undefined;
  }
}
