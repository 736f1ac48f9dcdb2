export { type Duration, describeDuration, parseDuration } from "./config/duration.js";
export {
  defaultSourceCapabilities,
  defaultTargetCapabilities,
  type SourceCapabilities,
  type TargetCapabilities,
} from "./connector/capabilities.js";
export {
  CORE_API_VERSION,
  type ConfigKeySpec,
  type ConfigValueType,
  type Connector,
  type ConnectorConfigSchema,
  type ConnectorContext,
  type ConnectorManifest,
  defineConnector,
  isConnector,
} from "./connector/connector.js";
export {
  type Column,
  formatLogicalType,
  type LogicalKind,
  type LogicalType,
  parseLogicalType,
  type Schema,
  sameLogicalType,
} from "./connector/logical-types.js";
export {
  batchFromRows,
  batchToRows,
  type ColumnVector,
  cellValue,
  cursorAt,
  filterBatch,
  isNull,
  type RecordBatch,
  RecordBatchBuilder,
  selectColumns,
  storageOf,
  toStorageValue,
} from "./connector/record-batch.js";
export type {
  CursorRange,
  ReadRequest,
  SourceConnection,
  SourceItem,
  SourceTableInfo,
  SourceTableReader,
  SourceTableRequest,
} from "./connector/source.js";
export {
  formatTargetTable,
  parseTableKey,
  type SourceTableRef,
  type TargetTableRef,
  targetTableFor,
} from "./connector/table-ref.js";
export type { CommitUnit, CommitUnitOptions, TargetConnection, TargetTableInfo, WriteStrategy } from "./connector/target.js";
export { compareCodePoints } from "./cursor/compare.js";
export { type CursorKind, cursorKindOf, cursorKinds, isTimeKind } from "./cursor/cursor-kind.js";
export {
  type CursorValue,
  compareCursor,
  cursorEquals,
  cursorFromJSON,
  cursorToJSON,
  cursorToString,
  dateCursor,
  formatCursor,
  formatDays,
  formatMicros,
  integerCursor,
  MICROS_PER_DAY,
  maxCursor,
  parseCursor,
  parseDateDays,
  parseTimestampMicros,
  textCursor,
  timestampCursor,
} from "./cursor/cursor-value.js";
export { type ErrorCode, type ErrorCodeInfo, errorCodes } from "./errors/codes.js";
export {
  asSqlloadError,
  type ErrorLocation,
  isSqlloadError,
  SqlloadError,
  type SqlloadErrorOptions,
} from "./errors/sqlload-error.js";

export { isJson, type Json } from "./state/json.js";
export {
  decodeRunLogRow,
  encodeRunLogRecord,
  RUN_LOG_FORMAT_VERSION,
  RUN_LOG_TABLE,
  type RunLogEvent,
  type RunLogRecord,
  type RunLogRow,
} from "./state/run-log.js";
