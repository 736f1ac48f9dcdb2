import { SqlloadError } from "@sqlload/core";
import { qualifiedName, quoteIdent, stringLiteral } from "./clickhouse-dialect.js";
import type { ClickHouseSession } from "./clickhouse-session.js";

export interface CatalogColumn {
  readonly name: string;
  /** As `system.columns.type` prints it: `Nullable(Decimal(18, 2))`. */
  readonly type: string;
  readonly nullable: boolean;
}

export interface CatalogTable {
  readonly name: string;
  /** Changes when EXCHANGE TABLES swaps another table in under this name: how a publish tells whether its swap happened. */
  readonly uuid: string;
  readonly engine: string;
  /** `system.tables.sorting_key`: `updated_at, id`. */
  readonly sortingKey: string;
  readonly comment: string;
  readonly columns: readonly CatalogColumn[];
}

/**
 * A table and its columns, or null when it does not exist (nor its database), in one statement: a
 * load describes its table several times, and each statement costs a few milliseconds even on chdb.
 * The columns are read once, sorted by `position` (element 1 of each tuple), and come as two arrays.
 */
export async function describeTable(session: ClickHouseSession, database: string, name: string): Promise<CatalogTable | null> {
  const tables = await session.query<{
    name: string;
    uuid: string;
    engine: string;
    sorting_key: string;
    comment: string;
    column_names: string[];
    column_types: string[];
  }>(
    "WITH (SELECT arraySort(c -> c.1, groupArray((position, name, type))) FROM system.columns WHERE database = {db:String} AND table = {name:String}) AS columns " +
      "SELECT name, toString(uuid) AS uuid, engine, sorting_key, comment, arrayMap(c -> c.2, columns) AS column_names, arrayMap(c -> c.3, columns) AS column_types " +
      "FROM system.tables WHERE database = {db:String} AND name = {name:String}",
    { db: database, name },
  );
  const table = tables[0];
  if (!table) return null;
  return {
    name: table.name,
    uuid: table.uuid,
    engine: table.engine,
    sortingKey: table.sorting_key,
    comment: table.comment,
    columns: table.column_names.map((column, i) => {
      const type = table.column_types[i] as string;
      return { name: column, type, nullable: /^(LowCardinality\()?Nullable\(/.test(type) };
    }),
  };
}

/**
 * The target table's description as its connection holds it (core's HeldTables): read once while
 * the table's lock is held, read again after the connection's own DDL or swap (`forget`).
 */
export interface TargetDescription {
  read(): Promise<CatalogTable | null>;
  forget(): void;
}

export async function tableUuid(session: ClickHouseSession, database: string, name: string): Promise<string | null> {
  const rows = await session.query<{ uuid: string }>(
    "SELECT toString(uuid) AS uuid FROM system.tables WHERE database = {db:String} AND name = {name:String}",
    { db: database, name },
  );
  return rows[0]?.uuid ?? null;
}

/** Tables of `database` whose name starts with `prefix` (or any of them), with their comments, by name. */
export async function tablesWithPrefix(
  session: ClickHouseSession,
  database: string,
  prefix: string | readonly string[],
): Promise<{ name: string; comment: string }[]> {
  const prefixes = typeof prefix === "string" ? [prefix] : prefix;
  const params: Record<string, string> = { db: database };
  prefixes.forEach((p, i) => {
    params[`p${i}`] = p;
  });
  const any = prefixes.map((_, i) => `startsWith(name, {p${i}:String})`).join(" OR ");
  return session.query<{ name: string; comment: string }>(
    `SELECT name, comment FROM system.tables WHERE database = {db:String} AND (${any}) ORDER BY name`,
    params,
  );
}

/** The partitions holding active parts: `all` for a table without PARTITION BY. */
export async function partitionsOf(session: ClickHouseSession, database: string, name: string): Promise<string[]> {
  const rows = await session.query<{ partition_id: string }>(
    "SELECT DISTINCT partition_id FROM system.parts WHERE database = {db:String} AND table = {name:String} AND active ORDER BY partition_id",
    { db: database, name },
  );
  return rows.map((r) => r.partition_id);
}

/** Copies every part of `from` into `to` (hard links, no data rewritten): same structure required. */
export async function attachAllPartitions(session: ClickHouseSession, database: string, to: string, from: string): Promise<void> {
  for (const partition of await partitionsOf(session, database, from)) {
    await session.command(
      `ALTER TABLE ${qualifiedName(database, to)} ATTACH PARTITION ID ${stringLiteral(partition)} FROM ${qualifiedName(database, from)}`,
    );
  }
}

/** Database engines whose tables have UUIDs and can be swapped with EXCHANGE TABLES. */
const SWAPPING_ENGINES = new Set(["Atomic", "Replicated", "Shared"]);

/**
 * Creates the database when missing (looked up first, so a user without CREATE DATABASE can load
 * into an existing one), and refuses one whose engine cannot swap tables: publishing needs
 * EXCHANGE TABLES, and telling whether a swap happened needs table UUIDs, which the old
 * `Ordinary` engine gives as zeros.
 */
export async function ensureDatabase(session: ClickHouseSession, database: string): Promise<void> {
  const found = await session.query<{ engine: string }>("SELECT engine FROM system.databases WHERE name = {db:String}", {
    db: database,
  });
  const engine = found[0]?.engine;
  if (engine === undefined) {
    await session.command(`CREATE DATABASE IF NOT EXISTS ${quoteIdent(database)}`);
    return;
  }
  if (!SWAPPING_ENGINES.has(engine)) {
    throw new SqlloadError(
      "SL305",
      `the ClickHouse database ${database} uses the ${engine} engine, which cannot swap tables atomically`,
      {
        hint: "Load into a database of the Atomic engine (ClickHouse's default): set the target's `schema` to another database, or recreate this one.",
      },
    );
  }
}
