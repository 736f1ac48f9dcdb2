import { createRequire } from "node:module";
import type duckdb from "@duckdb/node-bindings";
import { defineConnector, formatCount } from "@sqlload/core";
import { withAllocatorSettings } from "./duckdb-allocator.js";
import { duckdbTargetCapabilities } from "./duckdb-capabilities.js";
import { discardInstance, startTargetInstance } from "./duckdb-instance-start.js";
import {
  DEFAULT_MEMORY_LIMIT,
  DEFAULT_ROW_GROUP_SIZE,
  DUCKDB_ROW_GROUP_SIZE,
  READ_BASE_BYTES,
} from "./duckdb-memory-settings.js";
import { DUCKDB_DEFAULT_STORAGE_VERSION } from "./duckdb-storage-version.js";
import { DEFAULT_TARGET_PATH, targetExists } from "./duckdb-target-path.js";

const require = createRequire(import.meta.url);
const { version } = require("../package.json") as { version: string };

export { DEFAULT_TARGET_PATH } from "./duckdb-target-path.js";

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
        description: `DuckDB's memory_limit while sqlload writes the file (default "${DEFAULT_MEMORY_LIMIT}"): blocks already written are dropped beyond it, most of the rest spills to a temporary folder next to the file. Unset, it is raised for text or blobs of about 31 KB or more, which DuckDB cannot spill. "-1" is DuckDB's own default (80% of the memory).`,
      },
      {
        key: "row_group_size",
        type: "integer",
        description: `Rows per row group of what sqlload writes (default ${formatCount(DEFAULT_ROW_GROUP_SIZE)}; DuckDB's own is ${formatCount(DUCKDB_ROW_GROUP_SIZE)}), a multiple of 2048: smaller bounds the memory of wide rows, and below the default loads narrow rows slower; row groups already in the file stay as they are.`,
      },
      {
        key: "storage_version",
        type: "string",
        description: `The storage format of a file sqlload creates, as the DuckDB release that introduced it (default DuckDB's own, "${DUCKDB_DEFAULT_STORAGE_VERSION}"; "v1.3.0" takes less memory for wide distinct text but writes it slower and needs DuckDB 1.3 to read; "latest"); a file that exists keeps its format.`,
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
      {
        key: "memory_limit",
        type: "string",
        description: `DuckDB's memory_limit while sqlload reads the file. Unset, it is ${READ_BASE_BYTES / 1e6}MB, raised for each table read to what its columns and its longest text need (DuckDB keeps every block it reads up to the limit), tables of text or blobs of 4 KB or more are read in pages of about 8 MB under a limit raised for one page, and the limit goes to DuckDB's own default for lists, types its statistics do not measure, views and reads in cursor order. "-1" is DuckDB's own default (80% of the memory).`,
      },
    ],
    table: [],
  },
  targetCapabilities: (options) => duckdbTargetCapabilities(options.native_file_reads !== false),
  targetOpenIsInert: targetExists,
  // The client is loaded on first open, with the engine (one copy of it, whose classes the
  // engine's pieces recognise): a run whose target is elsewhere and that reads no DuckDB file never
  // loads it.
  // Where opening a target is what loads DuckDB's library, the library is loaded here first, with
  // its allocator set for writing (duckdb-allocator.ts). DuckDB then creates the instance the file
  // is attached to on a thread of its own while this one loads the client (duckdb-instance-start.ts).
  target: async (context) => {
    const bindings = withAllocatorSettings(() => require("@duckdb/node-bindings") as typeof duckdb);
    const started = startTargetInstance(bindings, context);
    let engine: typeof import("./engine.js");
    try {
      engine = await import("./engine.js");
    } catch (error) {
      if (started) discardInstance(bindings, started);
      throw error;
    }
    return engine.openTarget(context, started);
  },
  source: async (context) => (await import("./engine.js")).openSource(context),
});

// Types only: a value from the files behind them would load the client with the connector.
// The dialect helpers are in `@sqlload/connector-duckdb/engine`.
export type { DuckDBSource } from "./duckdb-source.js";
export type { DuckDBTarget } from "./duckdb-target.js";
