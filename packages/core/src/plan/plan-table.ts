import { describeDuration } from "../config/duration.js";
import { type TableSettings, windowSize } from "../config/table-settings.js";
import type { CommitModel } from "../connector/capabilities.js";
import type { CursorRange } from "../connector/source.js";
import { formatTargetTable, type TargetTableRef } from "../connector/table-ref.js";
import type { WriteStrategy } from "../connector/target.js";
import { type CursorKind, isTimeKind } from "../cursor/cursor-kind.js";
import { type CursorValue, compareCursor, parseCursor } from "../cursor/cursor-value.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import type { PendingRollback } from "../state/rollback.js";
import { collationWarnings } from "./collation-warnings.js";
import { type CommitMode, commitMode } from "./commit-mode.js";
import { checkCursorRules } from "./cursor-rules.js";
import { nowAs, nowMicros, type ReadStart, readStart, todayDays } from "./read-start.js";
import { type ReloadBuild, type ReloadBuildInput, reloadBuildNotes, resumedBuildStart } from "./reload-build.js";
import { layWindows, successor, type WindowSpec, windowStep } from "./windows.js";

export type EndReason = "--end-cursor" | "cursor_end" | "now plus lookahead" | "now" | "source maximum";

export interface PlanFlags {
  readonly startCursor?: string | undefined;
  readonly endCursor?: string | undefined;
  readonly reload?: boolean | undefined;
  /** With `reload`: drop a resumable reload in progress and start it over. */
  readonly restart?: boolean | undefined;
  /** `load --max-windows N`: overrides `max_windows_per_run`. */
  readonly maxWindows?: number | undefined;
}

/** Everything planning one table needs, gathered beforehand: planning itself does no I/O. */
export interface PlanInput {
  readonly source: string;
  /** The table key as configured (`public.orders`). */
  readonly key: string;
  readonly target: TargetTableRef;
  readonly settings: TableSettings;
  /** Present when the table has a cursor column and its kind is known. */
  readonly cursor?: { readonly column: string; readonly kind: CursorKind; readonly nullable: boolean } | undefined;
  /** Lines the source wants shown (index, collation, snapshot). */
  readonly sourceNotes?: readonly string[] | undefined;
  /** Lines the source wants shown only when the table is read in windows. */
  readonly sourceWindowNotes?: readonly string[] | undefined;
  /** The table keeps logged state: it also commits at each checkpoint. */
  readonly loggedState?: boolean | undefined;
  /** Collations the target table's text columns set, by column name. */
  readonly targetCollations?: Readonly<Record<string, string>> | undefined;
  /** Collations the source table's text columns set, by column name. */
  readonly sourceCollations?: Readonly<Record<string, string>> | undefined;
  /** The source reads in cursor order cheaply (its cursor leads an index). */
  readonly orderedSource?: boolean | undefined;
  /** The source's estimate of what a full read moves (`SourceTableInfo.fullReadBytes`). */
  readonly fullReadBytes?: number | undefined;
  readonly targetMax: CursorValue | null;
  readonly loggedWindow?: { readonly windowEnd: CursorValue; readonly cursor: CursorValue | null } | undefined;
  /** A rollback recorded in the run log that the next run follows (`sqlload rollback`). */
  readonly rollback?: PendingRollback | undefined;
  /** The source's maximum when planning: an integer cursor's windows end just past it. */
  readonly sourceMax?: CursorValue | null | undefined;
  readonly flags: PlanFlags;
  /** The run's start, fixed for the whole run. */
  readonly now: Date;
  /** The target's commit model: a staged target publishes `delete_insert` once, at the end of the run. */
  readonly commitModel?: CommitModel | undefined;
  /**
   * A reload of this windowed table is built resumably (the target declares `resumableReload`):
   * its windows go into a build table, bounded per run, and `targetMax` is the build's maximum.
   */
  readonly reloadBuild?: ReloadBuildInput | undefined;
}

export interface TablePlan {
  readonly source: string;
  readonly key: string;
  readonly target: TargetTableRef;
  readonly description?: string | undefined;
  readonly strategy: WriteStrategy;
  readonly primaryKey?: readonly string[] | undefined;
  readonly columns?: readonly string[] | undefined;
  readonly cursor?: { readonly column: string; readonly kind: CursorKind; readonly nullable: boolean } | undefined;
  readonly start: ReadStart;
  readonly end?: { readonly reason: EndReason; readonly value: CursorValue } | undefined;
  /** The whole read of this run, before windows. */
  readonly range: CursorRange;
  /** Rows whose cursor is NULL are read: a full read (no lower bound). */
  readonly includeNulls: boolean;
  readonly reload: boolean;
  /** The target's maximum of the cursor when planning: where the data's position starts. */
  readonly targetMax: CursorValue | null;
  readonly commit: CommitMode;
  /** The source's estimate of what a full read moves: a `chunked` table at most half a commit is read by a scan first. */
  readonly reckonedBytes?: number | undefined;
  /** A logged table commits at each checkpoint too (unless it is rebuilt, which commits once). */
  readonly loggedState?: boolean | undefined;
  /** When commits become visible: at each commit, or (a staged target under `delete_insert`) once at the end of the run. */
  readonly publish: "each-commit" | "end-of-run";
  readonly windows?: (WindowSpec & { readonly size: string; readonly perRun?: number | undefined }) | undefined;
  /** A resumable reload this run starts or continues: its windows are committed into a build table. */
  readonly reloadBuild?: ReloadBuild | undefined;
  readonly notes: readonly string[];
  /** What may go wrong that sqlload will not change (a collation set on a target column). */
  readonly warnings?: readonly string[] | undefined;
}

/** Plans one table: SPEC §3–§9 as a pure function of its inputs. */
export function planTable(input: PlanInput): TablePlan {
  const { settings, flags } = input;
  const table = `${input.source}.${input.key}`;
  const cursor = input.cursor;
  const strategy: WriteStrategy = settings.writeStrategy ?? (settings.cursorColumn ? "delete_insert" : "replace");
  const reload = flags.reload === true;
  const notes: string[] = [];
  const staged = input.commitModel === "staged";
  const base = {
    publish: staged && strategy === "delete_insert" && !reload ? ("end-of-run" as const) : ("each-commit" as const),
    source: input.source,
    key: input.key,
    target: input.target,
    description: settings.description,
    strategy,
    primaryKey: settings.primaryKey,
    columns: settings.columns,
    cursor,
    reload,
    targetMax: input.targetMax,
    loggedState: input.loggedState === true,
    reckonedBytes: input.fullReadBytes,
    warnings: collationWarnings({
      table: formatTargetTable(input.target),
      collations: input.targetCollations,
      cursorColumn: input.cursor?.column,
      primaryKey: settings.primaryKey,
      source: { table: `${input.source}.${input.key}`, collations: input.sourceCollations },
    }),
  };

  if (!cursor) {
    if (flags.startCursor !== undefined || flags.endCursor !== undefined) {
      throw new SqlloadError("SL204", `table ${table} has no cursor column, so --start-cursor/--end-cursor cannot apply to it`, {
        table,
      });
    }
    const commit = commitMode({ strategy, reload, settings, orderedSource: false });
    return {
      ...base,
      start: { reason: "everything", inclusive: true },
      range: {},
      includeNulls: true,
      commit,
      notes: [...(input.sourceNotes ?? [])],
    };
  }

  const kind = cursor.kind;
  checkCursorRules({ table, settings, column: cursor.column, kind, flags });
  const build = strategy === "replace" ? undefined : input.reloadBuild;
  const rebuilt = reload || build !== undefined;
  if ((strategy === "replace" || rebuilt) && (flags.startCursor !== undefined || flags.endCursor !== undefined)) {
    throw new SqlloadError(
      "SL211",
      `table ${table} is rebuilt and swapped in (${rebuilt ? (reload ? "--reload" : "a reload is in progress") : 'write_strategy = "replace"'}); a range read would replace it with only that range`,
      { table },
    );
  }
  const batch = windowSize(settings);
  const step = batch !== undefined ? windowStep(kind, batch, table) : undefined;
  const windowed = step !== undefined && strategy !== "replace";

  const startOf = (asReload: boolean) =>
    readStart({
      kind,
      settings,
      strategy,
      startCursor: flags.startCursor,
      reload: asReload,
      targetMax: input.targetMax,
      loggedWindow: input.loggedWindow,
      rollback: input.rollback,
      windowed,
      now: input.now,
    });
  const start = build?.resume ? resumedBuildStart(settings, build.resume) : startOf(rebuilt);
  const end = strategy === "replace" ? undefined : readEnd(input, kind, windowed);
  if (start.value && end && compareCursor(start.value, end.value) >= 0 && start.reason === "--start-cursor") {
    throw new SqlloadError("SL210", `table ${table}: --start-cursor is not before ${end.reason}`, { table });
  }

  const range: CursorRange = {
    ...(start.value ? { from: start.value, fromInclusive: start.inclusive } : {}),
    ...(end ? { to: end.value } : {}),
  };
  const includeNulls = start.value === undefined && end === undefined;

  if (strategy === "replace" && (settings.batchSize !== undefined || settings.lookback)) {
    notes.push("replace reads everything on every run: batch_size and lookback are ignored");
  }
  if (cursor.nullable) {
    notes.push(
      `rows whose ${cursor.column} is NULL are read by a full read only (first run, --reload, replace), never by an incremental one`,
    );
  }
  notes.push(...(input.sourceNotes ?? []));

  // A resumable reload commits its build window by window; the swap is one more commit at the end.
  const commit = commitMode({
    strategy,
    reload: reload && !build,
    settings,
    cursorKind: kind,
    orderedSource: input.orderedSource === true,
  });
  let windows: TablePlan["windows"];
  let reloadBuild: ReloadBuild | undefined;
  if (step !== undefined && strategy !== "replace") {
    if (!start.value) {
      throw new SqlloadError(
        "SL202",
        `table ${table} sets \`batch_size\` but has no start: the target is empty and there is no \`cursor_start\``,
        { table },
      );
    }
    // `append` reads strictly after the maximum: windows start at its successor.
    const from = start.windowEnd ?? (start.inclusive ? start.value : (successor(start.value) as CursorValue));
    if (!end) throw new SqlloadError("SL900", `table ${table}: a windowed read has no end`, { table });
    const spec = layWindows(from, end.value, step, table);
    const perRun = flags.maxWindows ?? settings.maxWindowsPerRun;
    const firstFrom = start.windowEnd && compareCursor(start.value, start.windowEnd) < 0 ? start.value : undefined;
    windows = { ...spec, firstFrom, size: batchText(batch as NonNullable<typeof batch>), perRun };
    notes.push(...(input.sourceWindowNotes ?? []));
    const perRunName = flags.maxWindows !== undefined ? "--max-windows" : "max_windows_per_run";
    if (build) {
      const fresh = startOf(true).value;
      const builtTo = start.windowEnd;
      const built = fresh && builtTo && compareCursor(fresh, builtTo) < 0 ? layWindows(fresh, builtTo, step, table).count : 0;
      reloadBuild = {
        id: build.id,
        phase: build.id === undefined ? "start" : "resume",
        fresh: build.resume === undefined,
        table: build.table,
        windowsBuilt: built,
        windowsTotal: built + spec.count,
      };
      notes.push(...reloadBuildNotes(reloadBuild, build, perRunName));
    } else if (reload && perRun !== undefined) {
      notes.push(
        `--reload rebuilds the table in one run over all ${spec.count} windows: ${perRunName} does not apply (the target cannot resume a reload)`,
      );
    }
  }
  return { ...base, start, end, range, includeNulls, commit, windows, reloadBuild, notes };
}

function batchText(batch: NonNullable<TableSettings["batchSize"]>): string {
  if (typeof batch === "bigint") return batch.toString();
  if (batch === "none") return "none";
  return describeDuration(batch);
}

function readEnd(input: PlanInput, kind: CursorKind, windowed: boolean): TablePlan["end"] {
  const { settings, flags, now } = input;
  if (flags.endCursor !== undefined) return { reason: "--end-cursor", value: parseCursor(kind, flags.endCursor, "--end-cursor") };
  if (settings.cursorEnd !== undefined) {
    if (settings.cursorEnd === "now" && isTimeKind(kind)) {
      // A date cursor ends at today, exclusive: it loads up to yesterday, never half of today.
      return { reason: "cursor_end", value: nowAs(kind, now) };
    }
    return { reason: "cursor_end", value: parseCursor(kind, settings.cursorEnd, "cursor_end") };
  }
  if (settings.lookahead && isTimeKind(kind)) {
    const value: CursorValue =
      kind === "date"
        ? { kind, value: todayDays(now) + Math.ceil(Number(settings.lookahead.micros) / 86_400_000_000) + 1 }
        : { kind, value: nowMicros(now) + settings.lookahead.micros };
    return { reason: "now plus lookahead", value };
  }
  if (!windowed) return undefined;
  if (kind === "timestamp") return { reason: "now", value: nowAs(kind, now) };
  // A windowed date cursor without an end reads today too, as an unwindowed read would.
  if (kind === "date") return { reason: "now", value: { kind, value: todayDays(now) + 1 } };
  if (kind === "integer") {
    const max = input.sourceMax;
    const value: CursorValue = max && max.kind === "integer" ? { kind, value: max.value + 1n } : { kind, value: 0n };
    // Without a source maximum (empty source) the end equals any start at or after 0: nothing to read.
    return { reason: "source maximum", value: max ? value : (input.targetMax ?? value) };
  }
  return undefined;
}
