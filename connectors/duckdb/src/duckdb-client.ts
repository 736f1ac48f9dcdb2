// The DuckDB client. Its JavaScript is built into this package (see `sqlloadBuild` in package.json
// and scripts/bundle-dist.mjs): the client is about a hundred CommonJS files re-exported from one
// index, and loading them one by one was a third of what a no-op run spent on start-up. Built as one
// file, dist/vendor/duckdb-node-api.cjs, it loads through V8's code cache. Its native layer,
// `@duckdb/node-bindings`, stays a dependency, so the client and the block copies below share one
// native binding.
//
// Because the bundle carries its own copy of the client, connectors built on this one (through
// `@sqlload/connector-duckdb/engine`) take the client's values from here too: the engine's
// `instanceof` checks only know the classes of its own copy.
export {
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
  LIST,
  VARCHAR,
} from "@duckdb/node-api";

/** The client's lower layer (the C API one call per function), for block copies into vectors. */
export { default as bindings } from "@duckdb/node-bindings";
