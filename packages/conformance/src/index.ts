export { type Capability, capabilities, capabilityDescriptions, checkSkips, type Skips } from "./capabilities.js";
export {
  type CursorDataset,
  type CursorInput,
  cursorDatasets,
  type FirstAtOrAfterCase,
  firstAtOrAfterCases,
  type MaxCase,
  maxCases,
  type RangeCase,
  rangeCases,
} from "./cases/cursor-cases.js";
export { identifierCases, oddSchemaSuffix } from "./cases/identifier-cases.js";
export { type TypeCase, type TypeValue, typeCases } from "./cases/type-cases.js";
export { expiringBatch } from "./expiring-batch.js";
export type { InputRow, SourceFixture, SourceHarness, TargetFixture, TargetHarness } from "./harness.js";
export { canonicalDecimal, canonicalKey, normalizeValue } from "./normalize.js";
export { ConformanceReport, conformanceReports, type ReportEntry } from "./report.js";
export { describeSourceConformance, ORDERED_ROWS } from "./source-suite.js";
export { describeTargetConformance } from "./target-suite.js";
export { withUtf8 } from "./utf8-batch.js";
