import { randomUUID } from "node:crypto";
import { formatTargetTable } from "../connector/table-ref.js";
import { asSqlloadError, isSqlloadError, type SqlloadError } from "../errors/sqlload-error.js";
import type { EmitEvent, TableResult } from "../events/run-event.js";
import type { PlanFlags } from "../plan/plan-table.js";
import { checkTables, isConfigError } from "./check-tables.js";
import { type PreparedTable, prepareTable } from "./prepare-table.js";
import type { ProjectSession, ProjectTable } from "./project-session.js";
import { runTable } from "./run-table.js";

export interface PlanProjectResult {
  readonly prepared: readonly PreparedTable[];
  /** Tables that could not be planned, as failed results. */
  readonly failed: readonly TableResult[];
}

/** Plans the selected tables: metadata only, no data moves. A table that cannot be planned fails alone. */
export async function planProject(
  session: ProjectSession,
  tables: readonly ProjectTable[],
  flags: PlanFlags,
  now: Date,
): Promise<PlanProjectResult> {
  await checkTables(session, tables, flags, { connect: true });
  const target = await session.targetConnection();
  const prepared: PreparedTable[] = [];
  const failed: TableResult[] = [];
  for (const table of tables) {
    try {
      const source = await session.source(table.source);
      prepared.push(await prepareTable({ table, source, target, flags, now }));
    } catch (error) {
      const name = formatTargetTable(table.config.target);
      failed.push(failedResult(table, asSqlloadError(error, "SL304", `cannot plan ${name}`, { table: name })));
    }
  }
  // A rule only the source's metadata could check is still a config error, not one table's failure.
  const configError = failed.find((f) => isConfigError(f.error))?.error;
  if (configError) throw configError;
  return { prepared, failed };
}

export function failedResult(table: ProjectTable, error: SqlloadError, status: TableResult["status"] = "failed"): TableResult {
  return {
    table: formatTargetTable(table.config.target),
    source: table.source,
    key: table.config.ref.key,
    status,
    rows: 0,
    dropped: 0,
    windows: 0,
    positionBefore: null,
    positionAfter: null,
    seconds: 0,
    error,
  };
}

export interface LoadOptions {
  readonly flags: PlanFlags;
  readonly concurrency?: number | undefined;
  /** Stop starting tables after the first failure. */
  readonly failFast?: boolean | undefined;
  readonly emit: EmitEvent;
  readonly signal: AbortSignal;
  /** The run's start; fixed for the whole run (`cursor_end = "now"`). */
  readonly now?: Date | undefined;
  readonly runId?: string | undefined;
  readonly chunkBytes?: number | undefined;
}

export interface LoadResult {
  readonly runId: string;
  readonly startedAt: string;
  readonly results: readonly TableResult[];
  readonly seconds: number;
}

/**
 * Loads the selected tables: each is planned, locked and run independently, `concurrency` at a
 * time; a failing table does not stop the others (unless `failFast`).
 */
export async function loadProject(
  session: ProjectSession,
  tables: readonly ProjectTable[],
  options: LoadOptions,
): Promise<LoadResult> {
  await checkTables(session, tables, options.flags, { connect: true });
  const runId = options.runId ?? randomUUID();
  const now = options.now ?? new Date();
  const started = Date.now();
  const { emit, signal } = options;
  emit({ type: "run_started", runId, at: now.toISOString(), tables: tables.map((t) => formatTargetTable(t.config.target)) });
  const results: TableResult[] = [];
  let stop = false;
  const queue = [...tables];
  const worker = async () => {
    for (let table = queue.shift(); table; table = queue.shift()) {
      if (signal.aborted || stop) break;
      const result = await loadOne(session, table, options, runId, now);
      results.push(result);
      if (result.status === "failed" && options.failFast) stop = true;
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 1, tables.length)) }, worker);
  await Promise.all(workers);
  const order = new Map(tables.map((t, i) => [formatTargetTable(t.config.target), i]));
  results.sort((a, b) => (order.get(a.table) ?? 0) - (order.get(b.table) ?? 0));
  const seconds = (Date.now() - started) / 1000;
  emit({ type: "run_completed", runId, results, seconds });
  return { runId, startedAt: now.toISOString(), results, seconds };
}

async function loadOne(
  session: ProjectSession,
  table: ProjectTable,
  options: LoadOptions,
  runId: string,
  now: Date,
): Promise<TableResult> {
  const name = formatTargetTable(table.config.target);
  let release: (() => Promise<void>) | undefined;
  try {
    const target = await session.targetConnection();
    if (target.lockTable) release = (await target.lockTable(table.config.target)).release;
    const source = await session.source(table.source);
    const prepared = await prepareTable({ table, source, target, flags: options.flags, now });
    options.emit({ type: "table_planned", table: name, plan: prepared.plan });
    for (const message of prepared.plan.warnings ?? []) options.emit({ type: "table_warning", table: name, message });
    return await runTable({
      plan: prepared.plan,
      source,
      request: prepared.request,
      info: prepared.info,
      target,
      targetColumns: prepared.targetColumns,
      runId,
      emit: options.emit,
      signal: options.signal,
      chunkBytes: options.chunkBytes,
      logged: prepared.logged,
    });
  } catch (error) {
    const err = isSqlloadError(error) ? error : asSqlloadError(error, "SL304", `cannot load ${name}`, { table: name });
    const result = failedResult(table, err, err.retryable ? "skipped" : "failed");
    options.emit({ type: result.status === "skipped" ? "table_skipped" : "table_failed", result });
    return result;
  } finally {
    await release?.().catch(() => {});
  }
}
