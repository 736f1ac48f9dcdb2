import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  type DuckDBConnection,
  DuckDBInstance,
  DuckDBListValue,
  type DuckDBType,
  DuckDBTypeId,
  LIST,
  VARCHAR,
} from "@duckdb/node-api";
import type { SourceHarness, TargetHarness } from "@sqlload/conformance";
import { appendBatch, duckdbTypeSql, quoteIdent, quoteString } from "@sqlload/connector-duckdb/engine";
import { batchFromRows, type Column, type SourceTableRef, type TargetTableRef } from "@sqlload/core";
import connector from "../src/index.js";
import { tempDir } from "./harness.js";

/** A DuckDB of the harness's own, in memory, for reading and writing files outside the connector. */
async function privateDuckDB(): Promise<DuckDBInstance> {
  const instance = await DuckDBInstance.create(":memory:", {
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
  });
  const connection = await instance.connect();
  await connection.run("SET GLOBAL TimeZone = 'UTC'");
  connection.closeSync();
  return instance;
}

async function withConnection<T>(instance: Promise<DuckDBInstance>, work: (c: DuckDBConnection) => Promise<T>): Promise<T> {
  const connection = await (await instance).connect();
  try {
    return await work(connection);
  } finally {
    connection.closeSync();
  }
}

/** DuckDB expands a path given to its readers as a glob: pattern characters are bracketed. */
const literalPath = (path: string) => path.replace(/[*?[]/g, (c) => `[${c}]`);

const sqlIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The folder name the files target gives a schema or table name, as docs/connectors/files.md
 * states it (an outside reader's knowledge, not the connector's code): control characters and
 * `%/\:*?"<>|=#` percent-encoded, `.` and `..` with their dots encoded, the empty name `__EMPTY__`.
 */
function folderName(name: string): string {
  if (name === "") return "__EMPTY__";
  if (name === "." || name === "..") return name.replaceAll(".", "%2E");
  let out = "";
  for (const c of name) {
    const code = c.codePointAt(0)!;
    out +=
      code < 0x20 || code === 0x7f || '%/\\:*?"<>|=#'.includes(c) ? `%${code.toString(16).toUpperCase().padStart(2, "0")}` : c;
  }
  return out;
}

/**
 * A files target under one temporary project per test file (`lake/`), a fresh connection and
 * schema per test. `readAll` reads a table the way docs/connectors/files.md tells outside readers
 * to, with DuckDB of its own and none of the connector's code: the `path` of each entry of
 * `manifest.json`'s `files`, read together with `read_parquet(…, union_by_name = true,
 * hive_partitioning = false)`, every value turned into an exact form (microseconds, day
 * numbers, hex). Files the manifest does not name (garbage, replaced files) are never read.
 */
export function filesTargetHarness(): TargetHarness & { close(): Promise<void> } {
  const project = tempDir("sqlload-files-conformance-target-");
  const root = join(project.dir, "lake");
  const reader = privateDuckDB();
  let n = 0;
  return {
    readsNewestRunLog: true,
    async connect() {
      const target = await connector.target!({ options: { path: "lake" }, projectDir: project.dir, schema: "raw" });
      // The trailing "_" keeps one schema's folder from being a prefix of a later one's (target_1_, target_10_).
      const schema = `target_${++n}_`;
      return {
        target,
        schema,
        readAll: (ref) => withConnection(reader, (connection) => readLiveTable(connection, root, ref)),
        async cleanup() {
          // Every schema this test made (`<schema>_2`, `<schema> "odd.schema" it's`) starts with its own name.
          if (!existsSync(root)) return;
          const prefix = folderName(schema);
          for (const entry of readdirSync(root)) {
            if (entry.startsWith(prefix)) rmSync(join(root, entry), { recursive: true, force: true });
          }
        },
      };
    },
    async close() {
      (await reader).closeSync();
      project.cleanup();
    },
  };
}

async function readLiveTable(
  connection: DuckDBConnection,
  root: string,
  ref: TargetTableRef,
): Promise<Record<string, unknown>[] | null> {
  const dir = join(root, folderName(ref.schema), folderName(ref.name));
  const manifestPath = join(dir, "manifest.json");
  if (!existsSync(manifestPath)) return null;
  const manifest = await connection.runAndReadAll(
    `SELECT columns IS NOT NULL AS exists, [f.path FOR f IN files] AS paths
       FROM read_json($manifest, columns = {columns: 'JSON', files: 'STRUCT(path VARCHAR)[]'})`,
    { manifest: literalPath(manifestPath) },
  );
  const [exists, paths] = manifest.getRowsJson()[0] as [boolean, string[]];
  // A manifest without columns is a table that only has run-log records: no table yet.
  if (!exists) return null;
  if (paths.length === 0) return [];
  const files = new DuckDBListValue(paths.map((path) => literalPath(join(dir, path))));
  const read = "read_parquet($files, union_by_name = true, hive_partitioning = false)";
  const shape = await connection.runAndReadAll(`SELECT * FROM ${read} LIMIT 0`, { files }, { files: LIST(VARCHAR) });
  const types = shape.columnTypes();
  const select = shape
    .columnNames()
    .map((name, i) => `${exact(sqlIdent(name), types[i]!, 0)} AS ${sqlIdent(name)}`)
    .join(", ");
  const rows = await connection.runAndReadAll(`SELECT ${select} FROM ${read}`, { files }, { files: LIST(VARCHAR) });
  return rows.getRowObjectsJson() as Record<string, unknown>[];
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

/**
 * Each test gets a source folder of its own; `createTable` writes the rows as Parquet with a
 * DuckDB of the harness's own (`COPY … TO … (FORMAT parquet)`, columns typed as the DuckDB
 * connector maps logical types), split over up to three files so a table is a folder of files
 * whose value ranges overlap. A table lives in the folder named as the table, and its options
 * are `format = "parquet"` alone: the source finds it by the default glob its name and format make, so
 * names with quotes, dots, backslashes and glob characters (`[br]`) reach the connector as a
 * user's `[sources.X.tables."…"]` would. A missing table's folder does not exist (SL206).
 */
export function filesSourceHarness(): SourceHarness & { close(): Promise<void> } {
  const writer = privateDuckDB();
  let tables = 0;
  return {
    async connect() {
      const project = tempDir("sqlload-files-conformance-source-");
      const data = join(project.dir, "data");
      mkdirSync(data, { recursive: true });
      return {
        async createTable(name, columns, rows) {
          const ref: SourceTableRef = { name, key: name };
          const folder = join(data, name);
          mkdirSync(folder, { recursive: true });
          const parts = rows.length >= 3 ? 3 : 1;
          await withConnection(writer, async (connection) => {
            for (let part = 0; part < parts; part++) {
              const table = `rows_${++tables}`;
              await connection.run(`CREATE TABLE ${table} (${columnDefs(columns)})`);
              try {
                const batch = batchFromRows(
                  columns,
                  rows.filter((_, i) => i % parts === part),
                );
                await appendBatch(
                  connection,
                  { schema: "main", name: table, columns: columns.map((c) => c.name), label: table, exactNames: true },
                  batch,
                );
                const file = join(folder, `part-${part}.parquet`);
                await connection.run(`COPY ${table} TO ${quoteString(file)} (FORMAT parquet)`);
              } finally {
                await connection.run(`DROP TABLE ${table}`);
              }
            }
          });
          return ref;
        },
        tableOptions: () => ({ format: "parquet" }),
        openSource: () => connector.source!({ options: { path: "data" }, projectDir: project.dir, sourceName: "conformance" }),
        async cleanup() {
          project.cleanup();
        },
      };
    },
    async close() {
      (await writer).closeSync();
    },
  };
}

function columnDefs(columns: readonly Column[]): string {
  return columns.map((c) => `${quoteIdent(c.name)} ${duckdbTypeSql(c.type)}`).join(", ");
}
