import type { SourceHarness, TargetHarness } from "@sqlload/conformance";
import { batchFromRows, type Column, type TargetTableRef } from "@sqlload/core";
import type pg from "pg";
import { quoteIdent } from "../src/postgres-dialect.js";
import { openSource, openTarget, type Server, startServer } from "./harness.js";

/**
 * One Postgres server and database per test file, started on first use; a fresh schema and
 * target connection per test. `readAll` reads with a pool of its own (never the connector's
 * code), casting every value to a form `normalizeValue` keeps exact: microseconds, day numbers,
 * hex, JSON text; pg's own parsing of dates and JSON numbers would lose precision.
 */
export function postgresTargetHarness(): TargetHarness & { close(): Promise<void> } {
  const shared = lazyDatabase("conformance_target");
  let n = 0;
  return {
    readsNewestRunLog: true,
    skips: { "type.nestedList": "Postgres arrays are rectangular: a list of lists of different lengths has no type" },
    async connect() {
      const { url, sql } = await shared.get();
      const target = await openTarget(url);
      // A trailing "_" keeps one test's schema from being a prefix of another's (t1_, t10_).
      const schema = `t${++n}_`;
      return {
        target,
        schema,
        readAll: (ref) => selectAll(sql, ref),
        async cleanup() {
          const { rows } = await sql.query("SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)", [schema]);
          for (const row of rows) await sql.query(`DROP SCHEMA ${quoteIdent(row.nspname)} CASCADE`);
        },
      };
    },
    close: () => shared.stop(),
  };
}

/** Source tables are written with the Postgres target into a schema per test, then read by the source in its snapshot. */
export function postgresSourceHarness(): SourceHarness & { close(): Promise<void> } {
  const shared = lazyDatabase("conformance_source");
  let n = 0;
  return {
    skips: { "type.nestedList": "Postgres arrays are rectangular: a list of lists of different lengths has no type" },
    async connect() {
      const { url, sql } = await shared.get();
      const writer = await openTarget(url);
      const schema = `src_${++n}`;
      const write = async (name: string, columns: readonly Column[], rows: readonly Readonly<Record<string, unknown>>[]) => {
        const ref = { schema, name };
        const ensured = await writer.ensureTable(ref, columns, {});
        const unit = await writer.begin(ref, { strategy: "append", columns: ensured });
        await unit.write(batchFromRows(columns, rows));
        await unit.commit();
      };
      return {
        async createTable(name, columns, rows) {
          await write(name, columns, rows);
          // Statistics, as autovacuum keeps them: the source then reckons the table's size (fullReadBytes).
          await sql.query(`ANALYZE ${quoteIdent(schema)}.${quoteIdent(name)}`);
          return { schema, name, key: `${schema}.${quoteIdent(name)}` };
        },
        openSource: () => openSource(url),
        insertRows: (table, columns, rows) => write(table.name, columns, rows),
        cleanup: () => writer.close(),
      };
    },
    close: () => shared.stop(),
  };
}

function lazyDatabase(name: string) {
  let server: Promise<Server> | undefined;
  let database: Promise<{ url: string; sql: pg.Pool }> | undefined;
  return {
    get() {
      server ??= startServer();
      database ??= server.then((s) => s.database(name));
      return database;
    },
    async stop() {
      if (server) await (await server).stop();
    },
  };
}

async function selectAll(sql: pg.Pool, ref: TargetTableRef): Promise<Record<string, unknown>[] | null> {
  const { rows: columns } = await sql.query(
    `SELECT a.attname AS name, t.typname AS type, t.typcategory AS category, e.typname AS element
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace ns ON ns.oid = c.relnamespace
       JOIN pg_type t ON t.oid = a.atttypid LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A'
      WHERE ns.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [ref.schema, ref.name],
  );
  if (columns.length === 0) return null;
  const select = columns
    .map((c) => `${exact(quoteIdent(c.name), c.type, c.category, c.element)} AS ${quoteIdent(c.name)}`)
    .join(", ");
  const { rows } = await sql.query({
    text: `SELECT ${select} FROM ${quoteIdent(ref.schema)}.${quoteIdent(ref.name)}`,
    types: { getTypeParser: () => (v: string) => v },
  });
  return rows;
}

/** An expression whose text keeps the value exact. */
function exact(column: string, type: string, category: string, element: string | null): string {
  if (category === "A") {
    const inner = element === "date" ? "(x - DATE '1970-01-01')::text" : element === "bytea" ? "encode(x, 'hex')" : "x::text";
    return `CASE WHEN ${column} IS NULL THEN NULL ELSE coalesce((SELECT json_agg(${inner}) FROM unnest(${column}) x), '[]') END::text`;
  }
  switch (type) {
    case "timestamp":
    case "timestamptz":
      return `(extract(epoch from ${column}) * 1000000)::bigint::text`;
    case "time":
      return `(extract(epoch from ${column}) * 1000000)::bigint::text`;
    case "date":
      return `(${column} - DATE '1970-01-01')::text`;
    case "bytea":
      return `encode(${column}, 'hex')`;
    default:
      return `${column}::text`;
  }
}
