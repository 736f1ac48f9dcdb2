export { type Duration, describeDuration, parseDuration } from "./config/duration.js";
export { connectorNames, findProjectFile, type LoadConfigOptions, loadConfig, PROJECT_FILE } from "./config/load-config.js";
export type { ProjectConfig, SourceConfig, TableConfig, TargetConfig } from "./config/project-config.js";
export { parseRateLimit, type RateLimit } from "./config/rate-limit.js";
export { camelCase, type SettingSpec, snakeCase, tableSettingSpecs, writeStrategies } from "./config/schema.js";
export { closest, didYouMean } from "./config/suggest.js";
export { checkCombinations, type TableSettings, validateTableSettings } from "./config/table-settings.js";
export { BATCH_BYTES, valueBytes } from "./connector/batch-bytes.js";
export {
  type CommitModel,
  commitModels,
  defaultSourceCapabilities,
  defaultTargetCapabilities,
  type SourceCapabilities,
  type TargetCapabilities,
} from "./connector/capabilities.js";
export {
  checkSourceReader,
  checkTargetConnection,
  sourceCapabilityProblems,
  targetCapabilityProblems,
} from "./connector/capability-check.js";
export {
  CORE_API_VERSION,
  type ConfigKeySpec,
  type ConfigValueType,
  type Connector,
  type ConnectorConfigSchema,
  type ConnectorContext,
  type ConnectorManifest,
  checkConnector,
  defineConnector,
  isConnector,
} from "./connector/connector.js";
export type { FileScan, FileScanFormat, FileScanOffer, FileScanRequest, FileScanWritten } from "./connector/file-scan.js";
export { HeldTables } from "./connector/held-tables.js";
export { LITTLE_ENDIAN } from "./connector/little-endian.js";
export {
  DEFAULT_LEASE_TIMING,
  type Heartbeat,
  holdLease,
  type LeaseHolder,
  type LeaseTiming,
  leaseHolder,
  leaseIsStale,
  parseLeaseHolder,
  startHeartbeat,
} from "./connector/lock-lease.js";
export {
  type Column,
  formatLogicalType,
  type LogicalKind,
  type LogicalType,
  parseLogicalType,
  type Schema,
  sameLogicalType,
} from "./connector/logical-types.js";
export { processAlive } from "./connector/process-alive.js";
export {
  allocate,
  batchFromRows,
  batchToRows,
  type ColumnVector,
  cellValue,
  columnCursorSpan,
  cursorAt,
  filterBatch,
  heldBatch,
  isNull,
  maxRow,
  type RecordBatch,
  RecordBatchBuilder,
  selectColumns,
  sliceBatch,
  storageOf,
  toStorageValue,
  type Utf8Fields,
} from "./connector/record-batch.js";
export { formatScaled, parseScaled } from "./connector/scaled-decimal.js";
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
  RELOAD_BUILD_SUFFIX,
  type SourceTableRef,
  type TargetTableRef,
  targetTableFor,
} from "./connector/table-ref.js";
export type {
  CommitUnit,
  CommitUnitOptions,
  EnsureTableOptions,
  PlanNoteContext,
  RunLogReadOptions,
  TargetConnection,
  TargetTableInfo,
  WriteStrategy,
} from "./connector/target.js";
export { Turns } from "./connector/turns.js";
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
export { LINGUISTIC_SAMPLE, linguisticOrderWarning } from "./cursor/linguistic-order.js";
export { type ErrorCategory, type ErrorCode, type ErrorCodeInfo, errorCategory, errorCodes } from "./errors/codes.js";
export {
  asSqlloadError,
  type ErrorLocation,
  isSqlloadError,
  SqlloadError,
  type SqlloadErrorOptions,
} from "./errors/sqlload-error.js";
export {
  nodeSocketErrorKind,
  toVendorSqlloadError,
  type VendorErrorContext,
  type VendorErrorKind,
  type VendorErrorOptions,
  vendorError,
  vendorErrorKinds,
  vendorErrorMeanings,
} from "./errors/vendor-error.js";
export { eventToJSON, resultToJSON, runResultsToJSON } from "./events/event-json.js";
export { resultFromJSON } from "./events/result-from-json.js";
export { type EmitEvent, EVENT_SCHEMA_VERSION, type RunEvent, type TableResult, type TableStatus } from "./events/run-event.js";
export { CHUNK_BYTES, type CommitMode, commitMode } from "./plan/commit-mode.js";
export { type EndReason, type PlanFlags, type PlanInput, planTable, type TablePlan } from "./plan/plan-table.js";
export { type ReadStart, readStart, type StartReason } from "./plan/read-start.js";
export { type ReloadBuild, type ReloadBuildInput, reloadProgressLine } from "./plan/reload-build.js";
export { batchLine, cursorLine, planToJSON, renderPlanTree } from "./plan/render-plan.js";
export {
  checkSchemaChange,
  holds,
  isEmptyChange,
  type SchemaChange,
  schemaChange,
  schemaChangeNotes,
  type TypeChange,
  typeChange,
} from "./plan/schema-change.js";
export { layWindows, MAX_WINDOWS, type WindowSpec, windowAt, windowIndexOf, windowStep } from "./plan/windows.js";
export { type CheckedDescription, checkTables, isConfigError } from "./run/check-tables.js";
export { CommitPoints } from "./run/commit-points.js";
export { type CrashPoint, crashPoint } from "./run/crash-points.js";
export { type ReadPath, readPath, readPathNote } from "./run/file-scan-path.js";
export { mergeTableSettings } from "./run/merge-settings.js";
export { type Pacing, pacedSource, pacingFor, RunPacing } from "./run/paced-source.js";
export { type LoggedStart, type PreparedTable, prepareTable, sourceRequest } from "./run/prepare-table.js";
export { type ConnectorLookup, ProjectSession, type ProjectTable } from "./run/project-session.js";
export { inCursorRange, keepInRange, overlapsCursorRange, spanInCursorRange } from "./run/range-filter.js";
export { pause, RateLimiter } from "./run/rate-limiter.js";
export { allCaughtUp, loadUntilCaughtUp, type PassLoopOptions, type PassLoopResult, runPasses } from "./run/run-loop.js";
export {
  failedResult,
  type LoadOptions,
  type LoadResult,
  loadProject,
  type PlanProjectResult,
  planProject,
} from "./run/run-project.js";
export { type RunTableArgs, runPrepared, runTable } from "./run/run-table.js";
export { type Selectable, selectTables } from "./run/select-tables.js";
export { cursorOrderBy, type RangeDialect, type RangePredicateOptions, rangePredicate } from "./sql/range-predicate.js";
export { keepWholeRunsCode } from "./start-up/require-compiled.js";
export { appendRunLogRecord } from "./state/append-record.js";
export { isJson, type Json } from "./state/json.js";
export { type HistoryEntry, type LoggedPosition, logDisagreesWithData, loggedPosition } from "./state/logged-state.js";
export { type ReloadInProgress, reloadInProgress } from "./state/reload-progress.js";
export { type PendingRollback, pendingRollback, rollbackRecord, runPosition } from "./state/rollback.js";
export { type RunPositionFacts, type RunSummary, runHistory } from "./state/run-history.js";
export {
  decodeRunLogRow,
  encodeRunLogRecord,
  type ReloadTag,
  RUN_LOG_FORMAT_VERSION,
  RUN_LOG_TABLE,
  type RunLogEvent,
  type RunLogRecord,
  type RunLogRow,
} from "./state/run-log.js";
export { type RunLogColumns, runLogOrder, runLogRowFromColumns, runLogRowsFromColumns } from "./state/run-log-columns.js";
export { formatCount } from "./text/format-count.js";
