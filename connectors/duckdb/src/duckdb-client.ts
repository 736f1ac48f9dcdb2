import { createRequire } from "node:module";
import type * as Api from "@duckdb/node-api";
import type Bindings from "@duckdb/node-bindings";

// The DuckDB client, loaded with `require` rather than `import`: it is about a hundred CommonJS
// files re-exported from one index, and importing it from ES modules makes Node parse every one of
// them for its export names first, which measured about 3x the time of requiring it (1.6 s against
// 0.6 s on a loaded 2-core machine), paid by every run that opens a DuckDB file. The values the
// connector uses are re-exported from here with their types; `import type` from the package itself
// stays free.
const require = createRequire(import.meta.url);
const api = require("@duckdb/node-api") as typeof Api;

/** The client's lower layer (the C API one call per function), for block copies into vectors. */
export const bindings = require("@duckdb/node-bindings") as typeof Bindings;

export const {
  BIGINT,
  DuckDBBlobValue,
  DuckDBDataChunk,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBInstance,
  DuckDBListValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTimeValue,
  DuckDBTypeId,
  DuckDBUUIDValue,
} = api;
export type DuckDBBlobValue = Api.DuckDBBlobValue;
export type DuckDBDataChunk = Api.DuckDBDataChunk;
export type DuckDBDateValue = Api.DuckDBDateValue;
export type DuckDBDecimalValue = Api.DuckDBDecimalValue;
export type DuckDBInstance = Api.DuckDBInstance;
export type DuckDBListValue = Api.DuckDBListValue;
export type DuckDBTimestampTZValue = Api.DuckDBTimestampTZValue;
export type DuckDBTimestampValue = Api.DuckDBTimestampValue;
export type DuckDBTimeValue = Api.DuckDBTimeValue;
export type DuckDBTypeId = Api.DuckDBTypeId;
export type DuckDBUUIDValue = Api.DuckDBUUIDValue;
