import { randomUUID } from "node:crypto";
import { formatTargetTable } from "../connector/table-ref.js";
import { asSqlloadError, type SqlloadError } from "../errors/sqlload-error.js";
import type { EmitEvent, TableResult } from "../events/run-event.js";
import type { PlanFlags } from "../plan/plan-table.js";
import { type CheckedDescription, checkTables, isConfigError, recentDescription } from "./check-tables.js";
import { type EarlyTargetReads, earlyReadsSettled, readTargetsEarly } from "./early-target-reads.js";
import { pacedSource, RunPacing } from "./paced-source.js";
import { type PreparedTable, prepareTable, sourceRequest } from "./prepare-table.js";
import type { ProjectSession, ProjectTable } from "./project-session.js";
import { runPrepared } from "./run-table.js";
import { classifyFailure, tableResult } from "./table-outcome.js";

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
  await session.openTargetEarly();
  const early = readTargetsEarly(session.earlyTarget(), tables);
  const prepared: PreparedTable[] = [];
  const failed: TableResult[] = [];
  try {
    const checked = await checkTables(session, tables, flags, { connect: true });
    await session.checkTargetSupports(tables);
    const earlyReads = await early;
    const target = await session.targetConnection();
    for (const table of tables) {
      try {
        const source = await session.source(table.source);
        const described = recentDescription(checked, table);
        const reads = earlyReads.get(table);
        prepared.push(await prepareTable({ table, source, target, flags, now, targetNotes: true, described, early: reads }));
      } catch (error) {
        const name = formatTargetTable(table.config.target);
        failed.push(failedResult(table, asSqlloadError(error, "SL304", `cannot plan ${name}`, { table: name })));
      }
    }
  } finally {
    await earlyReadsSettled(early);
  }
  // A rule only the source's metadata could check is still a config error, not one table's failure.
  const configError = failed.find((f) => isConfigError(f.error))?.error;
  if (configError) throw configError;
  return { prepared, failed };
}

export function failedResult(table: ProjectTable, error: SqlloadError, status: TableResult["status"] = "failed"): TableResult {
  return tableResult({
    table: formatTargetTable(table.config.target),
    source: table.source,
    key: table.config.ref.key,
    status,
    error,
  });
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
  const runId = options.runId ?? randomUUID();
  const now = options.now ?? new Date();
  const started = Date.now();
  const { emit, signal } = options;
  // Cursor-kind rules and what the target cannot do are configuration errors, found before the
  // target is used (and before it opens, unless opening it changes nothing: openTargetEarly).
  await session.openTargetEarly();
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 1, tables.length));
  // The tables that start at once read their target state meanwhile, where that reads the same.
  const early = readTargetsEarly(session.earlyTarget(), tables.slice(0, concurrency));
  try {
    const checked = await checkTables(session, tables, options.flags, { connect: true });
    await session.checkTargetSupports(tables);
    const earlyReads = await early;
    emit({ type: "run_started", runId, at: now.toISOString(), tables: tables.map((t) => formatTargetTable(t.config.target)) });
    const results: TableResult[] = [];
    let stop = false;
    const queue = [...tables];
    const pacing = new RunPacing(session.config.sources);
    // What the checks read, and the target state read meanwhile, stand for a load only until the
    // run first commits (recentDescription, readTargetsEarly).
    let committed = false;
    const watched: LoadOptions = {
      ...options,
      emit: (event) => {
        if (event.type === "window_committed") committed = true;
        emit(event);
      },
    };
    const worker = async () => {
      for (let table = queue.shift(); table; table = queue.shift()) {
        if (signal.aborted || stop) break;
        const recent = committed ? undefined : { checked, early: earlyReads.get(table) };
        const result = await loadOne(session, table, watched, runId, now, pacing, recent);
        results.push(result);
        if (result.status === "failed" && options.failFast) stop = true;
      }
    };
    const workers = Array.from({ length: concurrency }, worker);
    await Promise.all(workers);
    const order = new Map(tables.map((t, i) => [formatTargetTable(t.config.target), i]));
    results.sort((a, b) => (order.get(a.table) ?? 0) - (order.get(b.table) ?? 0));
    const seconds = (Date.now() - started) / 1000;
    emit({ type: "run_completed", runId, results, seconds });
    return { runId, startedAt: now.toISOString(), results, seconds };
  } finally {
    await earlyReadsSettled(early);
  }
}

async function loadOne(
  session: ProjectSession,
  table: ProjectTable,
  options: LoadOptions,
  runId: string,
  now: Date,
  pacing: RunPacing,
  recent: { checked: ReadonlyMap<ProjectTable, CheckedDescription>; early: EarlyTargetReads | undefined } | undefined,
): Promise<TableResult> {
  const name = formatTargetTable(table.config.target);
  let release: (() => Promise<void>) | undefined;
  try {
    const source = await session.source(table.source);
    // What the checks just read (none once the run has committed); else the source describes the
    // table while the target opens (DuckDB opens its file on a thread of its own). A failure of the
    // description is reported after the target's, as before.
    const checkedInfo = recentDescription(recent?.checked, table);
    const describing = checkedInfo ? Promise.resolve(checkedInfo) : source.describeTable(sourceRequest(table.config));
    describing.catch(() => {});
    const target = await session.targetConnection();
    if (target.capabilities.locking && target.lockTable) release = (await target.lockTable(table.config.target)).release;
    const described = await describing;
    const prepared = await prepareTable({
      table,
      source,
      target,
      flags: options.flags,
      now,
      runId,
      described,
      early: recent?.early,
    });
    options.emit({ type: "table_planned", table: name, plan: prepared.plan });
    for (const message of prepared.plan.warnings ?? []) options.emit({ type: "table_warning", table: name, message });
    const paced = pacing.for(table.source, prepared.rateLimit);
    const run = paced ? { ...prepared, source: pacedSource(prepared.source, paced, name, options.emit) } : prepared;
    return await runPrepared(run, {
      target,
      runId,
      emit: options.emit,
      signal: options.signal,
      chunkBytes: options.chunkBytes,
    });
  } catch (error) {
    const outcome = classifyFailure(error, {
      table: name,
      interrupted: false,
      committedAnything: false,
      fallback: `cannot load ${name}`,
    });
    const result = failedResult(table, outcome.error, outcome.status);
    options.emit({ type: outcome.event, result });
    return result;
  } finally {
    await release?.().catch(() => {});
  }
}
