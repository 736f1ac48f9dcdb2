import type { CursorRange } from "../connector/source.js";
import { cursorToJSON } from "../cursor/cursor-value.js";
import { planToJSON } from "../plan/render-plan.js";
import { EVENT_SCHEMA_VERSION, type RunEvent, type TableResult } from "./run-event.js";

/** A table's result as JSON: the facts of `table_completed`, `table_failed` and run_results.json. */
export function resultToJSON(result: TableResult): Record<string, unknown> {
  return {
    table: result.table,
    source: result.source,
    key: result.key,
    status: result.status,
    rows: result.rows,
    dropped: result.dropped,
    windows: result.windows,
    commits: result.commits ?? 0,
    positionBefore: cursorToJSON(result.positionBefore),
    positionAfter: cursorToJSON(result.positionAfter),
    ...(result.caughtUp !== undefined ? { caughtUp: result.caughtUp } : {}),
    ...(result.reload ? { reload: result.reload } : {}),
    seconds: Number(result.seconds.toFixed(3)),
    ...(result.error ? { error: result.error.toJSON() } : {}),
  };
}

function rangeToJSON(range: CursorRange) {
  return { from: cursorToJSON(range.from), fromInclusive: range.fromInclusive !== false, to: cursorToJSON(range.to) };
}

/**
 * The line `--log-format json` prints for an event, or undefined for events that stay internal
 * (per-batch progress). Every line carries `schemaVersion`, `event` and `time`.
 */
export function eventToJSON(event: RunEvent, now: Date = new Date()): Record<string, unknown> | undefined {
  const base = { schemaVersion: EVENT_SCHEMA_VERSION, event: event.type, time: now.toISOString() };
  switch (event.type) {
    case "run_started":
      return { ...base, runId: event.runId, startedAt: event.at, tables: event.tables };
    case "table_started":
      return { ...base, table: event.table, plan: planToJSON(event.plan) };
    case "window_committed":
      return {
        ...base,
        table: event.table,
        window: event.window ?? null,
        range: rangeToJSON(event.range),
        rows: event.rows,
        totalRows: event.totalRows,
        position: cursorToJSON(event.position),
      };
    case "table_published":
      return { ...base, table: event.table, totalRows: event.rows, position: cursorToJSON(event.position) };
    case "table_warning":
      return { ...base, table: event.table, message: event.message };
    case "rate_limited":
      return {
        ...base,
        table: event.table,
        limit: event.limit,
        perSecond: event.perSecond,
        waitSeconds: Number(event.waitSeconds.toFixed(3)),
      };
    case "table_reconciled":
      return { ...base, table: event.table, note: event.note };
    case "table_completed":
    case "table_failed":
    case "table_skipped":
      return { ...base, ...resultToJSON(event.result) };
    case "run_completed":
      return {
        ...base,
        runId: event.runId,
        seconds: Number(event.seconds.toFixed(3)),
        tables: event.results.length,
        loaded: event.results.filter((r) => r.status === "loaded").length,
        failed: event.results.filter((r) => r.status === "failed").length,
        skipped: event.results.filter((r) => r.status === "skipped").length,
        rows: event.results.reduce((sum, r) => sum + r.rows, 0),
      };
    default:
      return undefined;
  }
}

/** The content of `.sqlload/run_results.json`: the same per-table facts, for schedulers. */
export function runResultsToJSON(run: {
  runId: string;
  startedAt: string;
  seconds: number;
  results: readonly TableResult[];
  pass?: number;
}): Record<string, unknown> {
  return {
    schemaVersion: EVENT_SCHEMA_VERSION,
    runId: run.runId,
    startedAt: run.startedAt,
    seconds: Number(run.seconds.toFixed(3)),
    ...(run.pass !== undefined ? { pass: run.pass } : {}),
    caughtUp: run.results.every((r) => r.status === "loaded" && r.caughtUp !== false),
    tables: run.results.map(resultToJSON),
  };
}
