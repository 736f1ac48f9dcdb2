import type { Column } from "../connector/logical-types.js";
import { formatTargetTable, type TargetTableRef } from "../connector/table-ref.js";
import type { TargetConnection } from "../connector/target.js";
import type { CursorKind } from "../cursor/cursor-kind.js";
import { type CursorValue, cursorEquals, cursorToString } from "../cursor/cursor-value.js";
import { asSqlloadError, SqlloadError } from "../errors/sqlload-error.js";
import type { PlanFlags, TablePlan } from "../plan/plan-table.js";
import type { ReloadBuildInput } from "../plan/reload-build.js";
import { appendRunLogRecord } from "../state/append-record.js";
import type { ReloadInProgress } from "../state/reload-progress.js";
import { encodeRunLogRecord, type RunLogRecord } from "../state/run-log.js";

/** A resumable reload as `prepareTable` finds it: what planning is told, and the build table's facts. */
export interface PreparedReloadBuild {
  readonly input: ReloadBuildInput;
  /** The build table's columns when the run continues it; undefined when it starts over or none exists. */
  readonly columns: readonly Column[] | undefined;
  /** The build's maximum of the cursor when the run continues it; null otherwise. */
  readonly max: CursorValue | null;
}

/**
 * The rules of a resumable reload (SPEC §13), for a windowed table on a target declaring
 * `resumableReload`; undefined when the run is an ordinary one (no reload, or none in progress):
 * - `--reload` starts one (refused with SL213 while one is in progress, unless `--restart`);
 * - a run without `--reload` continues the one in progress (as does the run that started it, when
 *   executed again), from the end of its last window,
 *   while the build's maximum is still the one logged with it (the data wins: a build dropped or
 *   changed by hand starts over from the first window).
 * Reads the build table's metadata only.
 */
export async function prepareReloadBuild(args: {
  readonly target: TargetConnection;
  readonly ref: TargetTableRef;
  /** The reload the table's run log shows in progress (`reloadInProgress`), if any. */
  readonly progress: ReloadInProgress | undefined;
  readonly flags: PlanFlags;
  readonly cursor: { readonly column: string; readonly kind: CursorKind };
  /** This run: one executed again (a queue job after its worker died) continues the reload it started. */
  readonly runId?: string | undefined;
}): Promise<PreparedReloadBuild | undefined> {
  const { target, ref, flags, cursor } = args;
  const table = target.capabilities.resumableReload ? target.reloadBuildTable?.(ref) : undefined;
  if (!table) return undefined;
  const { progress } = args;
  const name = formatTargetTable(ref);
  const again = progress !== undefined && progress.id === args.runId;
  if (flags.reload && !again) {
    if (progress && !flags.restart) {
      throw new SqlloadError(
        "SL213",
        `table ${name} is already being reloaded (reload ${progress.id}${progress.windowEnd ? `, built up to ${cursorToString(progress.windowEnd)}` : ""}): --reload would start it over`,
        {
          table: name,
          hint: `Run \`sqlload load ${ref.name}\` to continue it, or \`sqlload load ${ref.name} --reload --restart\` to drop its build and start over.`,
        },
      );
    }
    return { input: { id: undefined, table }, columns: undefined, max: null };
  }
  if (!progress) return undefined;
  const info = await target.describeTable(table);
  const max = info ? await target.maxCursor(table, cursor.column, cursor.kind) : null;
  const { windowEnd } = progress;
  if (windowEnd && cursorEquals(progress.cursor, max)) {
    return { input: { id: progress.id, table, resume: { windowEnd, buildMax: max } }, columns: info?.columns, max };
  }
  const shown = (v: CursorValue | null) => (v ? cursorToString(v) : "none");
  const restartReason = windowEnd
    ? `the build table ${formatTargetTable(table)} ${info ? `has maximum ${shown(max)}, not the ${shown(progress.cursor)} its last window logged` : "is gone"}: the reload starts over from its first window (the data wins)`
    : undefined;
  return { input: { id: progress.id, table, restartReason }, columns: undefined, max: null };
}

/** Builds a record of the reload's `start` or `swap` (the committer's, so it carries the run, the reload id and any logged state). */
export type RecordBuilder = (
  phase: "start" | "swap",
  body: Pick<RunLogRecord, "cursor" | "rows"> & Pick<Partial<RunLogRecord>, "windowEnd">,
) => RunLogRecord;

/**
 * Before a build begins anew: drops whatever build an earlier reload left, then records that this
 * reload started, so the next run continues it even if no window commits in this one.
 */
export async function startReloadBuild(target: TargetConnection, plan: TablePlan, record: RecordBuilder): Promise<void> {
  const name = formatTargetTable(plan.target);
  await onTarget(name, "dropping the reload build of", () => target.dropReloadBuild!(plan.target));
  const started = record("start", { cursor: null, rows: 0 });
  await onTarget(name, "recording the reload of", () => appendRunLogRecord(target, plan.target, started));
}

/**
 * Once the build is caught up: makes sure the build table exists when its columns are known (a
 * reload that read no rows still replaces the table with an empty one), then swaps it in with the
 * record that ends the reload, in one transaction. That record's window end and maximum are the
 * new table's, so incremental runs continue from the build's position.
 */
export async function swapInReloadBuild(args: {
  readonly target: TargetConnection;
  readonly plan: TablePlan;
  readonly columns: readonly Column[] | undefined;
  readonly position: CursorValue | null;
  readonly record: RecordBuilder;
}): Promise<void> {
  const { target, plan } = args;
  const build = plan.reloadBuild!;
  const name = formatTargetTable(plan.target);
  const cursor = plan.cursor ? { column: plan.cursor.column, kind: plan.cursor.kind } : undefined;
  const columns = args.columns;
  if (columns && columns.length > 0) {
    const options = { primaryKey: plan.primaryKey, strategy: plan.strategy, cursor };
    await onTarget(name, "preparing the reload build of", () => target.ensureTable(build.table, columns, options));
  }
  const record = args.record("swap", { cursor: args.position, windowEnd: plan.windows?.end ?? null, rows: 0 });
  await onTarget(name, "swapping in the reload of", () => target.swapReloadBuild!(plan.target, encodeRunLogRecord(record)));
}

async function onTarget<T>(table: string, what: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw asSqlloadError(error, "SL305", `${what} ${table} failed`, { table });
  }
}
