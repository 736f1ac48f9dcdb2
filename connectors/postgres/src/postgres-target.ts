import { createHash } from "node:crypto";
import {
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type ConnectorContext,
  type CursorKind,
  type CursorValue,
  defaultTargetCapabilities,
  formatCount,
  formatLogicalType,
  formatTargetTable,
  HeldTables,
  holds,
  type PlanNoteContext,
  type RunLogReadOptions,
  type RunLogRow,
  SqlloadError,
  type TargetCapabilities,
  type TargetConnection,
  type TargetTableInfo,
  type TargetTableRef,
} from "@sqlload/core";
import type pg from "pg";
import { createCursorIndexSql, cursorIndexes } from "./cursor-index.js";
import { toSqlloadError } from "./errors.js";
import { cursorIndexesAndEstimate, defaultCollationIsCodePoint, describeRelation } from "./postgres-catalog.js";
import { columnDefinitions, describePg, PostgresCommitUnit } from "./postgres-commit-unit.js";
import { PostgresConnection, type PostgresOptions } from "./postgres-connection.js";
import {
  cursorExpression,
  cursorValueSql,
  fitsInto,
  type PgColumn,
  parseCursorText,
  pgTypeFor,
  qualifiedName,
  quoteIdent,
  sortsByCodePoint,
} from "./postgres-dialect.js";
import { dropReloadBuild, reloadBuildTable, swapReloadBuild } from "./postgres-reload-build.js";
import { ensureRunLogSql, ensureRunLogTable, readRunLog } from "./postgres-run-log.js";
import { describeTargetTable, type TargetTableFacts } from "./postgres-target-table.js";

/**
 * From about this size `plan` notes a scanned maximum (see planNotes): a scan of 64 MB takes tens of
 * milliseconds, a no-op run's whole work otherwise, and grows with every load.
 */
const SCANNED_NOTE_BYTES = 64e6;

/** Whether the table already has `column` in a type its values fit into: ensureTable changes nothing for it. */
function fits(column: Column, existing: readonly PgColumn[]): boolean {
  const current = existing.find((c) => c.name === column.name);
  return current !== undefined && fitsInto(column.type, current);
}

function plain(columns: readonly PgColumn[]): Column[] {
  return columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable }));
}

/** The advisory lock key of a table: 64 bits of a hash, so unrelated tables practically never share one. */
export function lockKey(ref: TargetTableRef): bigint {
  const digest = createHash("sha256").update(`sqlload\0${ref.schema}\0${ref.name}`).digest();
  return digest.readBigInt64BE(0);
}

/** A Postgres database as the target: every commit unit is one transaction. */
export class PostgresTarget implements TargetConnection {
  /** What every connection declares; the connector declares the same before connecting. */
  static readonly capabilities: TargetCapabilities = {
    ...defaultTargetCapabilities,
    commitModel: "transactional",
    codePointText: true,
    locking: true,
    commitGuard: true,
    resumableReload: true,
  };
  readonly capabilities: TargetCapabilities = PostgresTarget.capabilities;
  private readonly connection: PostgresConnection;
  private readonly locks = new Set<pg.Client>();
  /** Units in flight hold pooled clients; closing rolls them back so the pool can end. */
  private units = new Set<PostgresCommitUnit>();
  /** What was read of the tables this connection holds the lock of, kept for the load (HeldTables). */
  private readonly held = new HeldTables<TargetTableFacts>();

  constructor(options: PostgresOptions) {
    this.connection = new PostgresConnection(options);
  }

  private context(action: string, ref?: TargetTableRef) {
    return {
      role: "target" as const,
      action: `${action} (target ${this.connection.display})`,
      table: ref ? formatTargetTable(ref) : undefined,
    };
  }

  /** Reaches the server now, so core retries a refused connection before any table starts. */
  async connect(): Promise<void> {
    const client = await this.connection.acquire().catch((error) => {
      throw toSqlloadError(error, this.context("connecting"));
    });
    client.release();
  }

  private async withClient<T>(action: string, ref: TargetTableRef, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.connection.acquire().catch((error) => {
      throw toSqlloadError(error, this.context("connecting", ref));
    });
    try {
      return await body(client);
    } catch (error) {
      throw toSqlloadError(error, this.context(action, ref));
    } finally {
      client.release();
    }
  }

  /** The table's columns and its schema's run log: read once for a load while this connection holds its lock. */
  private facts(client: pg.ClientBase, ref: TargetTableRef): Promise<TargetTableFacts | null> {
    return this.held.get(ref, () => describeTargetTable(client, ref));
  }

  async describeTable(ref: TargetTableRef): Promise<TargetTableInfo | null> {
    return this.withClient(`describing ${formatTargetTable(ref)}`, ref, async (client) => {
      // A load's first look at the table: always from the catalog.
      this.held.forget(ref);
      const table = await this.facts(client, ref);
      return table ? { columns: plain(table.columns) } : null;
    });
  }

  /**
   * A table sqlload created has no index on its cursor (README, "Writing"): past a size, `plan`
   * says that each run's maximum, and `delete_insert`'s delete from it, scan the whole table, and
   * prints the index that makes both a lookup. Not for a text cursor of a type other than text,
   * varchar, char or name, which sqlload never creates: its index is on the column cast to text,
   * which Postgres refuses for an enum (the cast is not immutable).
   */
  async planNotes(ref: TargetTableRef, context: PlanNoteContext = {}): Promise<string[]> {
    const { cursor } = context;
    if (!cursor || context.rebuild || context.strategy === "replace") return [];
    return this.withClient(`reading plan notes for ${formatTargetTable(ref)}`, ref, async (client) => {
      const relation = await describeRelation(client, ref);
      const column = relation?.columns.find((c) => c.name === cursor.column);
      if (!relation || !column || (cursor.kind === "text" && !column.textLike)) return [];
      const native = cursor.kind === "text" && sortsByCodePoint(column, await defaultCollationIsCodePoint(client));
      const found = await cursorIndexesAndEstimate(client, relation.oid, column.name);
      const { btrees, usable } = cursorIndexes(found.indexes, column, cursor.kind, native);
      if (usable.length > 0 || found.bytes === undefined || found.bytes < SCANNED_NOTE_BYTES) return [];
      const name = quoteIdent(column.name);
      const scans =
        context.strategy === "delete_insert"
          ? "each run's maximum and the delete of the range it reads scan"
          : "each run's maximum scans";
      const why =
        btrees.length > 0
          ? `index ${btrees.map((i) => quoteIdent(i.name)).join(", ")} on ${name} is not in code point order (COLLATE "C"), which text cursors compare by`
          : `no index on ${formatTargetTable(ref)} leads with ${name}`;
      return [
        `${why}, so ${scans} the table (about ${formatCount(Math.round(found.bytes / 1e6))} MB); ` +
          `to read through an index instead, create: ${createCursorIndexSql(ref, column, cursor.kind, native)}`,
      ];
    });
  }

  async maxCursor(ref: TargetTableRef, column: string, kind: CursorKind): Promise<CursorValue | null> {
    return this.withClient(`reading the maximum of "${column}" in ${formatTargetTable(ref)}`, ref, async (client) => {
      const found = (await this.facts(client, ref))?.columns.find((c) => c.name === column);
      if (!found) return null;
      const native = kind === "text" && sortsByCodePoint(found, await defaultCollationIsCodePoint(client));
      const expression = cursorExpression(found, kind, native);
      const sql = `SELECT ${cursorValueSql("m", found, kind)} AS v FROM (SELECT max(${expression}) AS m FROM ${qualifiedName(ref)}) s`;
      const result = await client.query<{ v: string | null }>(sql);
      return parseCursorText(result.rows[0]?.v ?? null, kind);
    });
  }

  /**
   * Creates the schema and table, or adds the columns the table lacks. Every column is created
   * nullable, so a source column that later allows NULL, or one the source drops, never blocks a
   * load. Existing columns keep their type when the new one fits in it (int32 into bigint), widen
   * when it holds theirs without loss (int32 column, int64 source); otherwise SL302, before anything changes. DDL of one schema is serialized across runs.
   */
  async ensureTable(
    ref: TargetTableRef,
    columns: readonly Column[],
    _options: { readonly primaryKey?: readonly string[] | undefined },
  ): Promise<readonly Column[]> {
    const display = formatTargetTable(ref);
    return this.withClient(`creating ${display}`, ref, async (client) => {
      // A table that already has every column, and its schema's run log: nothing to change, and
      // no transaction or lock needed to find that out (one round trip, none while it is held).
      const table = await this.facts(client, ref);
      if (table?.runLog && columns.every((c) => fits(c, table.columns))) return plain(table.columns);
      this.held.forget(ref);
      // Statements without parameters go together, several to a round trip (the simple protocol):
      // a first load's DDL is most of what it does before its first row.
      try {
        await client.query(beginSchemaDdlSql(ref));
        const existing = await describePg(client, ref);
        if (!existing) {
          await client.query(
            `CREATE TABLE ${qualifiedName(ref)} (${columnDefinitions(columns)}); ${ensureRunLogSql(ref.schema)}`,
          );
        } else {
          const byName = new Map(existing.map((c) => [c.name, c]));
          const widen: Column[] = [];
          for (const column of columns) {
            const current = byName.get(column.name);
            if (current && !fitsInto(column.type, current) && holds(column.type, current.type)) widen.push(column);
            else if (current && !fitsInto(column.type, current)) {
              throw new SqlloadError(
                "SL302",
                `column "${column.name}" of ${display} is ${current.declared} (${formatLogicalType(current.type)}) in the target, ` +
                  `but the source now has ${formatLogicalType(column.type)}`,
                { table: display },
              );
            }
          }
          // A widening that loses nothing: Postgres rewrites the column in this transaction.
          for (const column of widen) {
            const name = quoteIdent(column.name);
            const type = pgTypeFor(column.type);
            await client.query(`ALTER TABLE ${qualifiedName(ref)} ALTER COLUMN ${name} TYPE ${type} USING ${name}::${type}`);
          }
          for (const column of columns) {
            if (byName.has(column.name)) continue;
            await client.query(
              `ALTER TABLE ${qualifiedName(ref)} ADD COLUMN ${quoteIdent(column.name)} ${pgTypeFor(column.type)}`,
            );
          }
        }
        if (existing) await ensureRunLogTable(client, ref.schema);
        const after = (await describePg(client, ref)) ?? [];
        await client.query("COMMIT");
        return plain(after);
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    });
  }

  async begin(ref: TargetTableRef, options: CommitUnitOptions): Promise<CommitUnit> {
    const client = await this.connection.acquire().catch((error) => {
      throw toSqlloadError(error, this.context("connecting", ref));
    });
    try {
      await this.ensureSchema(client, ref);
      // A replacing unit's commit swaps a new table in: the table is read again once it is done.
      const swapped = options.strategy === "replace" ? () => this.held.forget(ref) : undefined;
      const unit = await PostgresCommitUnit.begin(client, ref, options, (action) => this.context(action, ref), swapped);
      this.units = new Set([...this.units].filter((u) => !u.finished));
      this.units.add(unit);
      return unit;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
      throw toSqlloadError(error, this.context(`starting a commit to ${formatTargetTable(ref)}`, ref));
    }
  }

  /**
   * Before a unit on a table not made by `ensureTable` (a `replace` unit's first load): its schema
   * and the schema's run log, each made in a short transaction of its own under the schema's DDL
   * lock, as `ensureTable` makes them. Made inside the unit's long transaction, two units of one
   * new schema (`--concurrency`) raced: the second waited for the first to commit, then failed
   * on Postgres' unique index of schema (or table) names.
   */
  private async ensureSchema(client: pg.ClientBase, ref: TargetTableRef): Promise<void> {
    if ((await this.facts(client, ref))?.runLog) return;
    try {
      await client.query(`${beginSchemaDdlSql(ref)}; ${ensureRunLogSql(ref.schema)}; COMMIT`);
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
    this.held.forget(ref);
  }

  reloadBuildTable(ref: TargetTableRef): TargetTableRef {
    return reloadBuildTable(ref);
  }

  /** One transaction, holding the schema's DDL lock as `ensureTable` does. */
  async swapReloadBuild(ref: TargetTableRef, row: RunLogRow): Promise<void> {
    await this.withClient(`swapping in the reload of ${formatTargetTable(ref)}`, ref, async (client) => {
      try {
        await client.query(beginSchemaDdlSql(ref));
        await swapReloadBuild(client, ref, row);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        // The build is the table now (or the swap failed): read again either way, once it has settled.
        this.held.forget(ref);
      }
    });
  }

  async dropReloadBuild(ref: TargetTableRef): Promise<void> {
    await this.withClient(`dropping the reload build of ${formatTargetTable(ref)}`, ref, (client) =>
      dropReloadBuild(client, ref),
    );
  }

  async readRunLog(ref: TargetTableRef, options?: RunLogReadOptions): Promise<readonly RunLogRow[]> {
    return this.withClient(`reading the run log of ${formatTargetTable(ref)}`, ref, (client) =>
      readRunLog(client, ref.schema, formatTargetTable(ref), { last: options?.last, outsideTransaction: true }),
    );
  }

  /**
   * A session advisory lock on its own connection: held while the connection lives, so a run
   * that dies releases it with its connection.
   */
  async lockTable(ref: TargetTableRef): Promise<{ release(): Promise<void> }> {
    const display = formatTargetTable(ref);
    const key = lockKey(ref);
    let client: pg.Client;
    try {
      client = await this.connection.dedicated();
    } catch (error) {
      throw toSqlloadError(error, this.context("connecting", ref));
    }
    try {
      const result = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::int8) AS ok", [key.toString()]);
      if (!result.rows[0]?.ok) {
        const holder = await client.query<{ pid: number; application_name: string }>(
          `SELECT l.pid, a.application_name FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.classid = $1::oid AND l.objid = $2::oid`,
          [((key >> 32n) & 0xffffffffn).toString(), (key & 0xffffffffn).toString()],
        );
        const who = holder.rows[0]
          ? ` (backend pid ${holder.rows[0].pid}, ${holder.rows[0].application_name || "no application name"})`
          : "";
        throw new SqlloadError("SL306", `${display} is locked by another sqlload run${who}`, { table: display, retryable: true });
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw toSqlloadError(error, this.context(`locking ${display}`, ref));
    }
    this.locks.add(client);
    this.held.hold(ref);
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        this.locks.delete(client);
        this.held.release(ref);
        // Unlocked before the session ends: through a pooler (pgbouncer in session mode) ending
        // the client's session does not end the server's, which would keep the lock.
        await client.query("SELECT pg_advisory_unlock($1::int8)", [key.toString()]).catch(() => undefined);
        await client.end().catch(() => undefined);
      },
    };
  }

  async close(): Promise<void> {
    for (const unit of this.units) if (!unit.finished) await unit.abort().catch(() => undefined);
    this.units.clear();
    for (const client of this.locks) await client.end().catch(() => undefined);
    this.locks.clear();
    await this.connection.end();
  }
}

export async function createPostgresTarget(context: ConnectorContext): Promise<TargetConnection> {
  return new PostgresTarget(context.options as PostgresOptions);
}

/**
 * Opens a transaction holding the schema's DDL lock (serializing DDL of one schema across runs and
 * tables) and makes the schema if missing: simple-protocol statements, one round trip.
 */
function beginSchemaDdlSql(ref: TargetTableRef): string {
  const schemaLock = lockKey({ schema: ref.schema, name: "" });
  return `BEGIN; SELECT pg_advisory_xact_lock((${schemaLock})::int8); CREATE SCHEMA IF NOT EXISTS ${quoteIdent(ref.schema)}`;
}
