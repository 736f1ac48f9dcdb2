import { createRequire } from "node:module";
import { defineConnector, formatCount, SqlloadError } from "@sqlload/core";
import { type DuckDBDatabase, openDatabase } from "./duckdb-database.js";
import { DEFAULT_MEMORY_LIMIT, DUCKDB_ROW_GROUP_SIZE, memorySettings } from "./duckdb-memory-settings.js";
import { DuckDBSource } from "./duckdb-source.js";
import { DuckDBTarget } from "./duckdb-target.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

export const DEFAULT_TARGET_PATH = "warehouse.duckdb";

export default defineConnector({
  manifest: { name: "duckdb", version, description: "DuckDB: an embedded database file, the default target; also a source." },
  configSchema: {
    target: [
      {
        key: "path",
        type: "string",
        description: `The database file, relative to the project folder (default "${DEFAULT_TARGET_PATH}"); ":memory:" keeps it in memory.`,
      },
      {
        key: "memory_limit",
        type: "string",
        description: `DuckDB's memory_limit while sqlload writes the file (default "${DEFAULT_MEMORY_LIMIT}"): blocks already written are dropped beyond it, the rest spills to a temporary folder next to the file; "-1" is DuckDB's own default (80% of the memory).`,
      },
      {
        key: "row_group_size",
        type: "integer",
        description: `Rows per row group of what sqlload writes (default DuckDB's ${formatCount(DUCKDB_ROW_GROUP_SIZE)}), a multiple of 2048: smaller bounds the memory of wide rows, at the cost of more row groups; row groups already in the file stay as they are.`,
      },
      {
        key: "native_file_reads",
        type: "boolean",
        description:
          "Read a files source's Parquet and CSV files with DuckDB's own readers, straight into the table (default true); false moves their rows through sqlload.",
      },
    ],
    source: [
      { key: "path", type: "string", required: true, description: "The database file to read, relative to the project folder." },
    ],
    table: [],
  },
  targetCapabilities: (options) => DuckDBTarget.capabilitiesFor(options.native_file_reads !== false),
  async target(context) {
    const path = context.options.path ?? DEFAULT_TARGET_PATH;
    if (typeof path !== "string") throw new SqlloadError("SL103", "the DuckDB target's `path` must be a string");
    const native = context.options.native_file_reads !== false;
    const memory = memorySettings(context.options);
    return withDatabase(await openDatabase(path, context.projectDir, "read_write", "target", memory), (db) =>
      DuckDBTarget.open(db, native),
    );
  },
  async source(context) {
    const path = context.options.path;
    if (typeof path !== "string") {
      const name = context.sourceName ? `source ${context.sourceName}` : "a DuckDB source";
      throw new SqlloadError("SL105", `${name} needs \`path\`, the DuckDB file to read`);
    }
    return withDatabase(await openDatabase(path, context.projectDir, "read_only", "source"), DuckDBSource.open);
  },
});

async function withDatabase<T>(db: DuckDBDatabase, open: (db: DuckDBDatabase) => Promise<T>): Promise<T> {
  try {
    return await open(db);
  } catch (error) {
    await db.release();
    throw error;
  }
}

export { duckdbTypeSql, logicalTypeOf, quoteIdent } from "./duckdb-dialect.js";
export { DuckDBSource } from "./duckdb-source.js";
export { DuckDBTarget } from "./duckdb-target.js";
