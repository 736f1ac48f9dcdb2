import { type DuckDBConnection, type DuckDBType, DuckDBTypeId } from "@duckdb/node-api";
import type { SourceHarness, TargetHarness } from "@sqlload/conformance";
import { batchFromRows, type TargetTableRef } from "@sqlload/core";
import { openDatabase } from "../src/duckdb-database.js";
import { qualifiedTable, quoteIdent } from "../src/duckdb-dialect.js";
import { memorySettings } from "../src/duckdb-memory-settings.js";
import { load, openSource, openTarget, tempProject } from "./harness.js";

const FILE = "warehouse.duckdb";

/**
 * One database file per test file (opening an instance costs more than most cases), a fresh
 * schema and target connection per test. `readAll` reads through a connection of its own on the
 * same DuckDB instance (a second instance of one file in one process is not allowed), in plain
 * SQL that turns every value into an exact text or integer form: nothing of the connector's own
 * reading code is involved. Call `close` after the suite. `options` are the target's own settings
 * (`row_group_size`, `memory_limit`).
 */
export function duckdbTargetHarness(options: Record<string, unknown> = {}): TargetHarness & { close(): Promise<void> } {
  const project = tempProject();
  // Opened first, so the target's connections share this instance and its settings.
  const db = openDatabase(FILE, project.dir, "read_write", "target", memorySettings(options));
  let n = 0;
  return {
    readsNewestRunLog: true,
    async connect() {
      const target = await openTarget(project.dir, FILE, options);
      // The trailing "_" keeps one schema from being a prefix of a later one (target_1_, target_10_).
      const schema = `target_${++n}_`;
      return {
        target,
        schema,
        async readAll(ref) {
          const handle = await db;
          const connection = await handle.connect();
          try {
            return await selectAll(connection, ref);
          } finally {
            handle.disconnect(connection);
          }
        },
        async cleanup() {
          // Every schema this test made starts with its own name.
          const handle = await db;
          const connection = await handle.connect();
          try {
            const schemas = await connection.runAndReadAll(
              "SELECT schema_name FROM information_schema.schemata WHERE starts_with(schema_name, $prefix)",
              { prefix: schema },
            );
            for (const [name] of schemas.getRows()) await connection.run(`DROP SCHEMA ${quoteIdent(String(name))} CASCADE`);
          } finally {
            handle.disconnect(connection);
          }
        },
      };
    },
    async close() {
      await (await db).release();
      project.cleanup();
    },
  };
}

async function selectAll(connection: DuckDBConnection, ref: TargetTableRef): Promise<Record<string, unknown>[] | null> {
  const exists = await connection.runAndReadAll(
    "SELECT count(*) FROM information_schema.tables WHERE table_schema = $schema AND table_name = $name",
    { schema: ref.schema, name: ref.name },
  );
  if (Number(exists.getRows()[0]?.[0]) === 0) return null;
  const shape = await connection.runAndReadAll(`SELECT * FROM ${qualifiedTable(ref)} LIMIT 0`);
  const names = shape.columnNames();
  const types = shape.columnTypes();
  const select = names.map((name, i) => `${exact(quoteIdent(name), types[i]!, 0)} AS ${quoteIdent(name)}`).join(", ");
  const reader = await connection.runAndReadAll(`SELECT ${select} FROM ${qualifiedTable(ref)}`);
  return reader.getRowObjectsJson() as Record<string, unknown>[];
}

/** Microseconds, day numbers and hex: forms DuckDB's JSON conversion keeps exact. */
function exact(expression: string, type: DuckDBType, depth: number): string {
  switch (type.typeId) {
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ:
      return `epoch_us(${expression})`;
    case DuckDBTypeId.DATE:
      return `(${expression} - DATE '1970-01-01')`;
    case DuckDBTypeId.TIME:
      return `epoch_us(DATE '1970-01-01' + ${expression})`;
    case DuckDBTypeId.BLOB:
      return `hex(${expression})`;
    case DuckDBTypeId.LIST: {
      const x = `x${depth}`;
      return `list_transform(${expression}, ${x} -> ${exact(x, type.valueType, depth + 1)})`;
    }
    default:
      return expression;
  }
}

/** Source tables are written with the DuckDB target into the file the source then opens; a schema per test. */
export function duckdbSourceHarness(): SourceHarness & { close(): Promise<void> } {
  const project = tempProject();
  const writer = openTarget(project.dir, FILE);
  let n = 0;
  return {
    async connect() {
      const schema = `source_${++n}`;
      return {
        async createTable(name, columns, rows) {
          await load(await writer, { schema, name }, columns, [batchFromRows(columns, rows)]);
          return { schema, name, key: `${schema}.${quoteIdent(name)}` };
        },
        openSource: () => openSource(project.dir, FILE),
        async insertRows(table, columns, rows) {
          await load(await writer, { schema, name: table.name }, columns, [batchFromRows(columns, rows)]);
        },
        async cleanup() {},
      };
    },
    async close() {
      await (await writer).close();
      project.cleanup();
    },
  };
}
