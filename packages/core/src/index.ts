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


export { type ProjectConfig, type SourceConfig, type TableConfig, type TargetConfig } from "./config/project-config.js";
export { type TableSettings, validateTableSettings, checkCombinations } from "./config/table-settings.js";
export { tableSettingSpecs, writeStrategies, camelCase, snakeCase, type SettingSpec } from "./config/schema.js";
export { loadConfig, findProjectFile, PROJECT_FILE, type LoadConfigOptions } from "./config/load-config.js";
export { closest, didYouMean } from "./config/suggest.js";

export { planTable, type TablePlan, type PlanInput, type PlanFlags, type EndReason } from "./plan/plan-table.js";
export { readStart, type ReadStart, type StartReason } from "./plan/read-start.js";
export { layWindows, windowAt, windowIndexOf, windowStep, MAX_WINDOWS, type WindowSpec } from "./plan/windows.js";
export { commitMode, CHUNK_BYTES, type CommitMode } from "./plan/commit-mode.js";
export { renderPlanTree, planToJSON, cursorLine, batchLine } from "./plan/render-plan.js";

export { EVENT_SCHEMA_VERSION, type RunEvent, type EmitEvent, type TableResult, type TableStatus } from "./events/run-event.js";
export { runTable, type RunTableArgs } from "./run/run-table.js";
export { keepInRange } from "./run/range-filter.js";
export { selectTables, type Selectable } from "./run/select-tables.js";
export { ProjectSession, type ProjectTable, type ConnectorLookup } from "./run/project-session.js";
export { prepareTable, mergeTableSettings, type PreparedTable } from "./run/prepare-table.js";
export { planProject, loadProject, failedResult, type LoadOptions, type LoadResult, type PlanProjectResult } from "./run/run-project.js";
