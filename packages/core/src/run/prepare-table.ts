import type { TableConfig } from "../config/project-config.js";
import type { RateLimit } from "../config/rate-limit.js";
import { type TableSettings, windowSize } from "../config/table-settings.js";
import type { Column } from "../connector/logical-types.js";
import type { SourceConnection, SourceTableInfo, SourceTableRequest } from "../connector/source.js";
import { formatTargetTable } from "../connector/table-ref.js";
import type { TargetConnection } from "../connector/target.js";
import type { CursorKind } from "../cursor/cursor-kind.js";
import type { CursorValue } from "../cursor/cursor-value.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import { type PlanFlags, planTable, type TablePlan } from "../plan/plan-table.js";
import { checkSchemaChange, schemaChange, schemaChangeNotes } from "../plan/schema-change.js";
import { newestFirst } from "../state/history-tail.js";
import type { Json } from "../state/json.js";
import { type LoggedPosition, logDisagreesWithData, walkToPositionStart } from "../state/logged-state.js";
import { reloadInProgress } from "../state/reload-progress.js";
import { pendingRollback } from "../state/rollback.js";
import type { RunLogRow } from "../state/run-log.js";
import { commitSchedule } from "./commit-schedule.js";
import type { EarlyTargetReads } from "./early-target-reads.js";
import { readPath, readPathNote } from "./file-scan-path.js";
import { mergeTableSettings } from "./merge-settings.js";
import type { ProjectTable } from "./project-session.js";
import { readLoggedPosition } from "./read-logged-position.js";
import { prepareReloadBuild } from "./reload-build.js";
import { IN_PLACE_NOTE, replacesWithRecord } from "./replace-with-record.js";
import { resolveCursor } from "./resolve-cursor.js";

/** A logged table's position at the start of a run (SPEC §10–§11). */
export interface LoggedStart {
  /** What `ctx.state` starts as. */
  readonly state: Json | undefined;
  /** Set when the log's cursor and the data's maximum disagree: the data wins and a reconcile record is appended. */
  readonly reconcile?: { readonly logged: CursorValue | null; readonly data: CursorValue | null } | undefined;
  /** The run found nothing unreadable blocking the table (`--reload` does not look): its records say so. */
  readonly unblocked?: true | undefined;
}

/** A table ready to run: its plan and what running it needs. */
export interface PreparedTable {
  readonly logged?: LoggedStart | undefined;
  readonly table: ProjectTable;
  readonly plan: TablePlan;
  readonly request: SourceTableRequest;
  readonly info: SourceTableInfo;
  readonly targetColumns: readonly Column[] | undefined;
  readonly source: SourceConnection;
  /** The table's own `rate_limit` (file or TypeScript options); its source's applies otherwise. */
  readonly rateLimit?: RateLimit | undefined;
}

/** What planning first asks the source: the table, as `sqlload.toml` names it and its columns. */
export function sourceRequest(config: TableConfig): SourceTableRequest {
  return {
    table: config.ref,
    cursorColumn: config.settings.cursorColumn,
    columns: config.settings.columns,
    options: config.options,
  };
}

/**
 * Gathers what planning needs (the source's metadata, the target's maximum and run log), then
 * plans. Reads metadata only; moves no data.
 */
export async function prepareTable(args: {
  table: ProjectTable;
  source: SourceConnection;
  target: TargetConnection;
  flags: PlanFlags;
  now: Date;
  /** Records planned as if already appended to the run log: `sqlload rollback` shows the next run's plan before it writes. */
  pendingRecords?: readonly RunLogRow[] | undefined;
  /** `plan` shows what only the target can tell (`planNotes`); a load does not spend the round trips. */
  targetNotes?: boolean | undefined;
  /** The run this plan is for: a run executed again (a queue job) continues the reload it started. */
  runId?: string | undefined;
  /** The source's answer to `sourceRequest(table.config)`, when the caller asked while the target opened. */
  described?: SourceTableInfo | undefined;
  /** The target's description and newest run-log records, when the caller began reading them during the checks. */
  early?: EarlyTargetReads | undefined;
}): Promise<PreparedTable> {
  const { table, source, target, flags, now } = args;
  const config = table.config;
  const name = formatTargetTable(config.target);
  const baseRequest = sourceRequest(config);
  const info = args.described ?? (await source.describeTable(baseRequest));
  const settings = mergeTableSettings(config.settings, info.settings, config.where, `${config.source}.${config.ref.key}`);
  const request: SourceTableRequest = { ...baseRequest, cursorColumn: settings.cursorColumn, columns: settings.columns };
  const targetInfo = await (args.early?.info ?? target.describeTable(config.target));
  const targetColumns = targetInfo?.columns;
  const cursor = settings.cursorColumn ? resolveCursor(settings, info, targetColumns, name) : undefined;
  checkColumnsExist(settings, info.columns, name);

  const windowed = windowSize(settings) !== undefined;
  // The run log is read once, for a windowed table's position, a reload in progress, a pending rollback and a logged table's state.
  const readsLog = (cursor && (windowed || targetInfo)) || info.loggedState;
  // Every walk of the history planning makes, each once, on the log's newest records when they decide them all.
  const walks = (logged: LoggedPosition) => {
    // Only a logged table's start depends on whether an unreadable record blocks it.
    if (info.loggedState) walkToPositionStart(logged.history);
    return {
      progress: reloadInProgress(logged.history),
      rollback: cursor ? pendingRollback(logged.history, cursor.kind) : undefined,
      window: cursor ? lastWindow(logged, cursor.kind) : undefined,
    };
  };
  const log = readsLog
    ? await readLoggedPosition(target, config.target, args.pendingRecords ?? [], walks, args.early?.newest)
    : undefined;
  const position = log?.position;
  const strategy = settings.writeStrategy ?? (settings.cursorColumn ? "delete_insert" : "replace");
  // A resumable reload's build stands in for the table: its columns, its maximum, its position.
  const build =
    cursor && windowed && strategy !== "replace" && log
      ? await prepareReloadBuild({ target, ref: config.target, progress: log.found.progress, flags, cursor, runId: args.runId })
      : undefined;
  const startsOver = flags.reload === true || (build !== undefined && build.input.resume === undefined);
  const tableColumns = build ? build.columns : targetColumns;
  const schemaNotes = evolveSchema(settings, info.columns, tableColumns, startsOver, name);
  const targetMax = build
    ? build.max
    : cursor && targetInfo
      ? await target.maxCursor(config.target, cursor.column, cursor.kind, { atOrAbove: position?.cursor })
      : null;
  const loggedWindow = windowed && targetInfo && !build ? log?.found.window : undefined;
  const rollback = targetInfo && !flags.reload && !build ? log?.found.rollback : undefined;
  const logged = info.loggedState && position ? loggedStart(position, targetMax, startsOver, cursor !== undefined) : undefined;
  let sourceMax: CursorValue | null | undefined;
  const needsSourceMax = cursor?.kind === "integer" && windowed && !flags.endCursor && !settings.cursorEnd;
  if (needsSourceMax) {
    const reader = await source.openTable(request, info);
    try {
      sourceMax = reader.maxCursor ? await reader.maxCursor() : null;
    } finally {
      await reader.close();
    }
  }
  const plan = planTable({
    source: config.source,
    key: config.ref.key,
    target: config.target,
    settings,
    cursor,
    sourceNotes: [...(info.notes ?? []), ...schemaNotes],
    sourceWindowNotes: info.windowNotes,
    loggedState: info.loggedState === true,
    targetCollations: targetInfo?.collations,
    sourceCollations: info.collations,
    orderedSource: source.capabilities.orderedReads && info.cursorIndexed === true,
    fullReadBytes: info.fullReadBytes,
    targetMax,
    loggedWindow,
    rollback,
    sourceMax,
    flags,
    now,
    commitModel: target.capabilities.commitModel,
    reloadBuild: build?.input,
  });
  const targetNotes =
    args.targetNotes && target.planNotes
      ? await target.planNotes(config.target, {
          cursor: cursor && { column: cursor.column, kind: cursor.kind },
          strategy: plan.strategy,
          // A resumable reload reads and deletes in its build table, not in the live one.
          rebuild: plan.commit === "swap" || plan.reloadBuild !== undefined,
          range: plan.range,
          includeNulls: plan.includeNulls,
        })
      : [];
  const pathNote = readPathNote(
    readPath({
      info,
      source: source.capabilities,
      target: target.capabilities,
      strategy: commitSchedule(plan, target.capabilities.commitModel).unitStrategy,
    }),
  );
  const inPlace = replacesWithRecord(plan, { rebuild: plan.commit === "swap" }, target.capabilities, info.loggedState === true)
    ? [IN_PLACE_NOTE]
    : [];
  const notes = [...(pathNote ? [pathNote] : []), ...inPlace, ...targetNotes];
  return {
    table,
    plan: notes.length ? { ...plan, notes: [...plan.notes, ...notes] } : plan,
    request,
    info: { ...info, settings: undefined },
    targetColumns: tableColumns,
    source,
    logged,
    rateLimit: settings.rateLimit,
  };
}

/**
 * Source schema changes against the existing target table, checked before anything connects to
 * write: lossy ones (and any under on_schema_change = "fail") refuse the table; the others are
 * shown, and the target applies them when it prepares the table. A rebuilt table takes any schema.
 */
function evolveSchema(
  settings: TableSettings,
  sourceColumns: readonly Column[] | undefined,
  targetColumns: readonly Column[] | undefined,
  reload: boolean,
  table: string,
): string[] {
  const strategy = settings.writeStrategy ?? (settings.cursorColumn ? "delete_insert" : "replace");
  if (reload || strategy === "replace") return [];
  const read =
    settings.columns && sourceColumns ? sourceColumns.filter((c) => settings.columns!.includes(c.name)) : sourceColumns;
  const change = schemaChange(targetColumns, read);
  if (!change) return [];
  checkSchemaChange(change, table, settings.onSchemaChange ?? "evolve");
  return schemaChangeNotes(change);
}

function checkColumnsExist(settings: TableSettings, columns: readonly Column[] | undefined, table: string): void {
  if (!columns) return;
  const names = new Set(columns.map((c) => c.name));
  for (const key of settings.primaryKey ?? []) {
    if (!names.has(key))
      throw new SqlloadError("SL208", `table ${table}: primary key column "${key}" is not among its columns`, { table });
  }
  for (const name of settings.columns ?? []) {
    if (!names.has(name))
      throw new SqlloadError("SL209", `table ${table}: column "${name}" in \`columns\` is not among its columns`, { table });
  }
  if (settings.columns && settings.cursorColumn && !settings.columns.includes(settings.cursorColumn)) {
    throw new SqlloadError("SL209", `table ${table}: \`columns\` must include the cursor column "${settings.cursorColumn}"`, {
      table,
    });
  }
}

/**
 * The last committed window's end and the target's maximum then (SPEC §9), from the records after
 * the last reset: an unreadable record or a reset in between means no window position (the data wins).
 */
function lastWindow(position: LoggedPosition, kind: CursorKind) {
  for (const entry of newestFirst(position.history)) {
    // After a rollback the window position is the rollback's (see pendingRollback).
    if ("error" in entry || entry.record.event === "reset" || entry.record.event === "rollback") return undefined;
    if (entry.record.event !== "run") continue;
    const { windowEnd, cursor } = entry.record;
    return windowEnd && windowEnd.kind === kind ? { windowEnd, cursor: cursor ?? null } : undefined;
  }
  return undefined;
}

/**
 * A logged table's starting position. An unreadable record blocks only this table (SL500);
 * `--reload` starts over; when a table with a cursor finds its logged cursor disagreeing with the
 * data's maximum (changed by hand, or the log deleted), the data wins.
 */
function loggedStart(position: LoggedPosition, dataMax: CursorValue | null, reload: boolean, hasCursor: boolean): LoggedStart {
  if (reload) return { state: undefined };
  if (position.blocking) throw position.blocking;
  if (logDisagreesWithData(position, dataMax, hasCursor)) {
    return { state: undefined, reconcile: { logged: position.cursor, data: dataMax }, unblocked: true };
  }
  return { state: position.state, unblocked: true };
}
