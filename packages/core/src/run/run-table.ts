import { checkSourceReader } from "../connector/capability-check.js";
import type { Column } from "../connector/logical-types.js";
import type {
  SourceConnection,
  SourceItem,
  SourceTableInfo,
  SourceTableReader,
  SourceTableRequest,
} from "../connector/source.js";
import { formatTargetTable } from "../connector/table-ref.js";
import type { TargetConnection } from "../connector/target.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import type { EmitEvent, TableResult } from "../events/run-event.js";
import { CHUNK_BYTES, readsUnorderedFirst } from "../plan/commit-mode.js";
import type { TablePlan } from "../plan/plan-table.js";
import {
  type CommitSchedule,
  commitSchedule,
  lookupFrom,
  nextWindow,
  type ReadPass,
  startOfWalk,
  type WindowRef,
} from "./commit-schedule.js";
import { Committer } from "./committer.js";
import { crashPoint } from "./crash-points.js";
import { type ReadPath, readPath } from "./file-scan-path.js";
import type { LoggedStart, PreparedTable } from "./prepare-table.js";
import { BatchFilter, interruptedError, ReadPosition, readItems } from "./read-items.js";
import { type RecordBuilder, startReloadBuild, swapInReloadBuild } from "./reload-build.js";
import { scanPass } from "./scan-pass.js";
import { classifyFailure, tableResult } from "./table-outcome.js";
import { checkLoggedTable, checkStrategy } from "./target-support.js";
import { UnorderedBudget } from "./unordered-read.js";

export interface RunTableArgs {
  readonly plan: TablePlan;
  readonly source: SourceConnection;
  readonly request: SourceTableRequest;
  readonly info: SourceTableInfo;
  readonly target: TargetConnection;
  /** The target table's columns before the run; undefined when it does not exist. */
  readonly targetColumns: readonly Column[] | undefined;
  readonly runId: string;
  readonly emit: EmitEvent;
  readonly signal: AbortSignal;
  /** A logged table's starting position (SPEC §10–§11). */
  readonly logged?: LoggedStart | undefined;
  /** Bytes between commits of an ordered read; default about 1 GB. */
  readonly chunkBytes?: number | undefined;
}

/** Runs a table `prepareTable` planned. */
export function runPrepared(
  prepared: PreparedTable,
  run: Pick<RunTableArgs, "target" | "runId" | "emit" | "signal" | "chunkBytes">,
): Promise<TableResult> {
  const { plan, source, request, info, targetColumns, logged } = prepared;
  return runTable({ ...run, plan, source, request, info, targetColumns, logged });
}

/** What one table's run works with: its schedule, the read side and the commit side. */
interface TableLoad {
  readonly args: RunTableArgs;
  readonly table: string;
  readonly schedule: CommitSchedule;
  readonly filter: BatchFilter;
  readonly committer: Committer;
  /** Rows through sqlload, or the source's files read by the target itself. */
  readonly path: ReadPath;
  /** Closes the table's reader and opens it again: a read stopped early may have cost it its snapshot. */
  readonly reopen: () => Promise<SourceTableReader>;
}

/**
 * Runs one table's plan: reads the source and commits into the target as its commit schedule
 * says, writing a run-log record in every commit. Never throws: failures become a `failed` (or
 * `skipped`) result; the commit in flight is aborted and earlier commits stay.
 */
export async function runTable(args: RunTableArgs): Promise<TableResult> {
  const { plan, emit } = args;
  const table = formatTargetTable(plan.target);
  const started = Date.now();
  const schedule = commitSchedule(plan, args.target.capabilities.commitModel);
  const filter = new BatchFilter(table, plan.columns, plan.cursor?.column, args.source.capabilities.exactRange);
  const position = new ReadPosition(plan.targetMax);
  const committer = new Committer({
    plan,
    schedule,
    target: args.target,
    sourceColumns: args.info.columns,
    targetColumns: args.targetColumns,
    filter,
    position,
    runId: args.runId,
    table,
    emit,
    logged: args.logged !== undefined,
    unblocked: args.logged?.unblocked,
    state: args.logged?.state,
  });
  const path = readPath({
    info: args.info,
    source: args.source.capabilities,
    target: args.target.capabilities,
    strategy: schedule.unitStrategy,
  });
  let reader: SourceTableReader | undefined;
  const openReader = async () => {
    reader = await args.source.openTable(args.request, args.info);
    checkSourceReader(reader, args.source.capabilities, `the source of ${plan.source}.${plan.key}`);
    return reader;
  };
  const reopen = async () => {
    await reader?.close().catch(() => {});
    reader = undefined;
    return openReader();
  };
  const load: TableLoad = { args, table, schedule, filter, committer, path, reopen };
  const result = (status: TableResult["status"], extra: Pick<TableResult, "caughtUp" | "error" | "reload">) =>
    tableResult({
      table,
      source: plan.source,
      key: plan.key,
      status,
      rows: committer.committedRows,
      dropped: filter.dropped,
      windows: committer.windowsDone,
      commits: committer.unitsCommitted,
      positionBefore: plan.targetMax,
      positionAfter: committer.committedPosition,
      seconds: (Date.now() - started) / 1000,
      ...extra,
    });
  emit({ type: "table_started", table, plan });
  try {
    checkStrategy(args.target.capabilities, schedule.unitStrategy, table);
    if (args.logged) checkLoggedTable(args.target.capabilities, table);
    // The target's table is checked while the source opens its snapshot (two round trips for Postgres).
    const [opened] = await allOrFirstError([openReader(), committer.ensureExistingTable()]);
    if (args.logged?.reconcile) await committer.reconcile(args.logged.reconcile);
    const record: RecordBuilder = (phase, body) => committer.reloadRecord(phase, body);
    if (plan.reloadBuild?.fresh) await startReloadBuild(args.target, plan, record);
    const caughtUp = await loadAll(load, opened);
    await committer.finish();
    if (plan.reloadBuild && caughtUp) {
      await swapInReloadBuild({
        target: args.target,
        plan,
        columns: committer.knownColumns,
        position: committer.committedPosition,
        record,
      });
    }
    const reload = plan.reloadBuild ? (caughtUp ? "swapped" : "building") : undefined;
    const loaded = result("loaded", { caughtUp: schedule.reportsCaughtUp ? caughtUp : undefined, reload });
    emit({ type: "table_completed", result: loaded });
    return loaded;
  } catch (error) {
    await committer.abort();
    const outcome = classifyFailure(error, {
      table,
      interrupted: args.signal.aborted,
      committedAnything: committer.committedRows > 0 || committer.windowsDone > 0,
      fallback: `load of ${table} failed`,
    });
    const failed = result(outcome.status, { error: outcome.error });
    emit({ type: outcome.event, result: failed });
    return failed;
  } finally {
    await reader?.close().catch(() => {});
  }
}

/** Runs the schedule; returns whether the table is caught up (no window left before its end). */
async function loadAll(load: TableLoad, reader: SourceTableReader): Promise<boolean> {
  const { steps } = load.schedule;
  const { committer } = load;
  if (steps.kind === "passes") {
    let current = reader;
    for (const pass of steps.passes) current = await readPass(load, current, pass);
    await committer.commit();
    return true;
  }
  const { windows, perRun } = steps;
  const lookups = load.args.source.capabilities.firstCursorLookup;
  // A window's commit (the target taking in the rows still on their way, its run-log record, the
  // commit itself) runs while the next window's read starts: the source is idle by then. Every way
  // out of the loop waits for it first, so a failure never leaves a commit running behind it.
  let committing: Promise<void> | undefined;
  try {
    for (let walk = startOfWalk; ; ) {
      throwIfAborted(load);
      const from = lookupFrom(windows, walk);
      // Asked of the source, so a bounded run always moves data when any is left.
      const firstRow = lookups && from ? await reader.firstCursorAtOrAfter!(from) : undefined;
      const step = nextWindow(windows, perRun, walk, firstRow);
      if (step.kind === "stop" || step.kind === "empty-to-end") {
        await committing;
        committing = undefined;
      }
      if (step.kind === "stop") return step.caughtUp;
      if (step.kind === "empty-to-end") {
        await committer.begin(undefined, { range: step.range, includeNulls: false });
        await committer.commit({ range: step.range, ref: overWholeReload(load.args.plan, step.window) });
        return true;
      }
      const previous = committing;
      committing = undefined;
      await readPass(load, reader, step.pass, previous);
      committing = committer.commit({ range: step.window, ref: overWholeReload(load.args.plan, step.pass.window!) });
      // Awaited later (the next read, or the catch below): handled now, so a failure while the
      // source is asked for the next window is not an unhandled rejection.
      committing.catch(() => undefined);
      walk = step.after;
    }
  } catch (error) {
    // The commit's failure comes first: whatever failed after it was begun while it ran.
    const failed = await committing?.then(
      () => undefined,
      (commitError: unknown) => commitError,
    );
    throw failed ?? error;
  }
}

/** A resumable reload's commits count windows over the whole reload, as `plan` does ("window 3 of 6"). */
function overWholeReload(plan: TablePlan, ref: WindowRef): WindowRef {
  const build = plan.reloadBuild;
  return build ? { index: ref.index + build.windowsBuilt, count: build.windowsTotal } : ref;
}

function throwIfAborted(load: TableLoad): void {
  if (load.args.signal.aborted) throw interruptedError(load.table);
}

/**
 * Reads one pass into the unit in flight (beginning one when needed), committing where the
 * schedule allows; returns the reader it ended with. A table that likely commits once is read
 * unordered first, and again in cursor order if it outgrows a commit (see readsUnorderedFirst).
 */
async function readPass(
  load: TableLoad,
  reader: SourceTableReader,
  pass: ReadPass,
  previous?: Promise<void>,
): Promise<SourceTableReader> {
  const { args, schedule, committer, table } = load;
  if (load.path.kind === "files") {
    await previous;
    await scanPass({ reader, pass, schedule, committer, signal: args.signal, table, chunkBytes: args.chunkBytes });
    return reader;
  }
  const chunkBytes = args.chunkBytes ?? CHUNK_BYTES;
  const unorderedFirst =
    !previous &&
    !committer.open &&
    committer.unitsCommitted === 0 &&
    readsUnorderedFirst(args.plan.commit, args.plan.reckonedBytes, chunkBytes, args.logged !== undefined);
  if (unorderedFirst) {
    const budget = new UnorderedBudget(chunkBytes, table);
    const dropped = load.filter.dropped;
    const read = await readInto(load, reader, pass, { ordered: false, budget });
    if (read === "done") return reader;
    await committer.abandonUnit();
    load.filter.dropped = dropped;
    const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;
    const why =
      read === "budget"
        ? `the source reckoned ${table} at ${mb(args.plan.reckonedBytes ?? 0)}, but reading it in any order passed ${mb(budget.spent)}`
        : `rows of ${table} share a primary key, which only commits in cursor order may place apart`;
    args.emit({
      type: "table_warning",
      table,
      message: `${why}: rolled back and read again in cursor order, to commit about every ${mb(chunkBytes)}`,
    });
    reader = await load.reopen();
  }
  await readInto(load, reader, pass, { ordered: schedule.commitsAtCommitPoints, previous });
  return reader;
}

/**
 * Reads `pass` into the unit in flight, to the end (`done`). An unordered read with a `budget`
 * stops early: before the batch that would reach a commit's bytes (`budget`), or at rows that share
 * a primary key (`duplicate-key`): an error within one commit, but an ordered read may commit
 * between them, so only it can tell. With `previous` (the commit before, in flight), the read
 * starts at once and the unit is begun once that commit has settled.
 */
async function readInto(
  load: TableLoad,
  reader: SourceTableReader,
  pass: ReadPass,
  how: { readonly ordered: boolean; readonly budget?: UnorderedBudget; readonly previous?: Promise<void> | undefined },
): Promise<"done" | "budget" | "duplicate-key"> {
  const { args, schedule, committer, filter, table } = load;
  const items = readItems(
    reader,
    {
      range: pass.range,
      includeNulls: pass.includeNulls,
      ordered: how.ordered,
      window: pass.window,
      state: committer.state,
      signal: args.signal,
    },
    { table, source: `${args.plan.source}.${args.plan.key}` },
  );
  const chunkBytes = args.chunkBytes ?? CHUNK_BYTES;
  let bytes = 0;
  const replacing = { range: pass.deleteRange ?? pass.range, includeNulls: pass.includeNulls };
  let early: Promise<IteratorResult<SourceItem>> | undefined;
  if (how.previous) {
    early = items.next();
    // The commit's failure first: the read after it failed only because it ran meanwhile, if at all.
    await allOrFirstError([how.previous, early]).catch(async (error: unknown) => {
      await items.return(undefined).catch(() => undefined);
      throw error;
    });
  }
  /** The first item: the one read while the commit before ran, if any. */
  const firstItem = () => early ?? items.next();
  let next: IteratorResult<SourceItem>;
  if (committer.open) next = await firstItem();
  else if (committer.columnsKnown) {
    // The unit begins (the target's table made, its write opened) while the source sends its first
    // rows, not after them: on a short load those round trips were a tenth of the time.
    [next] = await allOrFirstError([firstItem(), committer.begin(undefined, replacing)]);
  } else {
    next = await firstItem();
    const first = next.done ? undefined : next.value;
    await committer.begin(first?.kind === "batch" ? first.batch.schema : undefined, replacing);
  }
  for (; !next.done; next = await items.next()) {
    throwIfAborted(load);
    const item = next.value;
    if (item.kind === "batch") {
      crashPoint("read");
      if (how.budget && !how.budget.take(item.bytes)) {
        await items.return(undefined);
        return "budget";
      }
      const kept = filter.keep(item.batch, pass);
      try {
        if (kept.batch.length > 0) await committer.write(kept);
      } catch (error) {
        if (!how.budget || !(error instanceof SqlloadError) || error.code !== "SL301") throw error;
        await items.return(undefined);
        return "duplicate-key";
      }
      crashPoint("write");
    } else if (item.kind === "checkpoint") {
      if (!args.logged) {
        throw new SqlloadError("SL501", `table ${table} yielded a checkpoint but keeps no logged state`, { table });
      }
      // A checkpoint marks exactly what the rows before it cover: commit them with it (a table
      // being rebuilt commits once, at the swap, with the last checkpoint).
      committer.state = item.state;
      if (schedule.commitsAtCheckpoints) await commitAndContinue(committer);
    } else if (item.kind === "commit-point" && how.ordered && schedule.commitsAtCommitPoints) {
      bytes += item.bytesSinceLast ?? 0;
      if (bytes >= chunkBytes || item.required) {
        bytes = 0;
        await commitAndContinue(committer);
      }
    }
  }
  return "done";
}

/** Commits what the pass read so far and goes on in a new unit that replaces nothing. */
async function commitAndContinue(committer: Committer): Promise<void> {
  await committer.commit();
  await committer.begin(undefined);
}

/** What each of `work` gives, once all have settled; the first failure otherwise (none left running behind it). */
async function allOrFirstError<T extends readonly unknown[]>(work: readonly [...{ [K in keyof T]: Promise<T[K]> }]): Promise<T> {
  const settled = await Promise.allSettled(work);
  for (const result of settled) if (result.status === "rejected") throw result.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
