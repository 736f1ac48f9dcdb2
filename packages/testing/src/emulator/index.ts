export { EmulatorDatabase, EmulatorSession, type Parameters, type StatementResult } from "./duckdb-executor.js";
export { EmulatorError } from "./emulator-error.js";
export {
  type Failure,
  FailureInjector,
  type RequestInfo,
  type RequestMatcher,
  requestMatching,
} from "./failure-injection.js";
export { daysToIso, microsToIso, type PlainValue, plainValue } from "./plain-values.js";
export {
  type MatchedStatement,
  matchStatement,
  type StatementShape,
  splitStatements,
  type Translation,
} from "./statement-shapes.js";
export { type TableClaims, tableClaims } from "./table-claims.js";
