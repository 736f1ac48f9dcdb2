/**
 * `@sqlload/connector-duckdb/engine`: building blocks for connectors that run on DuckDB, such as
 * the files connector, which reads and writes files through an in-memory DuckDB. They are the
 * pieces this connector is made of, so a connector built on them maps types, converts values,
 * moves batches and reports errors exactly as the DuckDB connector does:
 *
 * - the dialect: identifier and string quoting, logical type ↔ DuckDB type, and whether a DuckDB
 *   type is the canonical one of its logical type (read with no cast);
 * - a DuckDB value as a cursor value;
 * - reading a query's rows as RecordBatches (`streamBatches`, `estimateBytes`), and writing
 *   RecordBatches through the appender (`appendBatch`), with the value conversions between
 *   RecordBatch storage and DuckDB vectors inside them;
 * - core's cursor range with its bounds bound as DuckDB parameters (`duckdbRange`);
 * - a commit unit's statements (`runStatement`) and their failures as coded errors (`writingTable`);
 * - an upsert on a primary key through a staging table (`StagedMerge`), with the measure of a
 *   batch it is sized by (`measureBatch`);
 * - DuckDB errors as coded SqlloadErrors;
 * - the DuckDB client's classes a connector creates values and instances with: this package
 *   carries its own copy of the client, and the pieces above recognise only its classes.
 *
 * The package's main entry is the connector, which loads this subpath when it first opens a file
 * (`openTarget`, `openSource`): one copy of the client serves both.
 */
export { type AppendTarget, appendBatch } from "./duckdb-appender.js";
export { estimateBytes, streamBatches } from "./duckdb-batches.js";
export { DuckDBInstance, DuckDBListValue, LIST, VARCHAR } from "./duckdb-client.js";
export { duckdbTypeSql, isCanonical, logicalTypeOf, quoteIdent, quoteString } from "./duckdb-dialect.js";
export { openSource, openTarget } from "./duckdb-open.js";
export { type DuckDBRangeOptions, duckdbRange, type SqlCondition } from "./duckdb-range.js";
export { StagedMerge, type StagedMergeTarget } from "./duckdb-staged-merge.js";
export { runStatement, writingTable } from "./duckdb-statement.js";
export { cursorFromDuckDB } from "./duckdb-values.js";
export { measureBatch } from "./duckdb-write-memory.js";
export { duckdbMessage, wrapDuckDBError } from "./errors.js";
