import type { TableSettings } from "../config/table-settings.js";
import { formatTargetTable, type TargetTableRef } from "../connector/table-ref.js";
import type { CursorValue } from "../cursor/cursor-value.js";
import { minusDuration, type ReadStart } from "./read-start.js";

/**
 * What planning is told about a resumable reload of a windowed table (SPEC §13): the rules that
 * decide it live in `run/reload-build.ts`; planning only lays its windows.
 */
export interface ReloadBuildInput {
  /** The reload being continued; undefined when this run starts one (`--reload`, or the build was lost). */
  readonly id: string | undefined;
  /** Where the new table is built while the old one stays live. */
  readonly table: TargetTableRef;
  /** Set when continuing a build: the end of its last committed window, and the build's maximum. */
  readonly resume?: { readonly windowEnd: CursorValue; readonly buildMax: CursorValue | null } | undefined;
  /** Why a reload in progress starts over (its build table was dropped or changed by hand). */
  readonly restartReason?: string | undefined;
}

/** A resumable reload as planned for this run. */
export interface ReloadBuild {
  readonly id: string | undefined;
  /** `start`: this run starts the reload (`--reload`); `resume`: it continues one in progress. */
  readonly phase: "start" | "resume";
  /** The build begins anew from the first window: an earlier build table is dropped first. */
  readonly fresh: boolean;
  readonly table: TargetTableRef;
  /** Windows of the whole reload committed before this run. */
  readonly windowsBuilt: number;
  /** Windows of the whole reload, from its start to this run's end. */
  readonly windowsTotal: number;
}

/** Where a continued build reads from: the end of its last window (less any lookback, windows staying aligned to it). */
export function resumedBuildStart(settings: TableSettings, resume: NonNullable<ReloadBuildInput["resume"]>): ReadStart {
  const { windowEnd } = resume;
  const value = settings.lookback ? minusDuration(windowEnd, settings.lookback) : windowEnd;
  return { reason: "window position", value, inclusive: true, basis: resume.buildMax ?? undefined, windowEnd };
}

/** `reload in progress, window 3 of 6, old table live until the swap`: the progress `plan` shows on the table's line. */
export function reloadProgressLine(build: ReloadBuild): string {
  const { windowsBuilt: built, windowsTotal: total } = build;
  if (built >= total) return `reload in progress, all ${total} window${total === 1 ? "" : "s"} built: swapped in by this load`;
  const state = build.phase === "start" ? "reload starting" : "reload in progress";
  return `${state}, window ${built + 1} of ${total}, old table live until the swap`;
}

/** The notes a planned reload adds: what happens to the live table meanwhile, and how to start over. */
export function reloadBuildNotes(build: ReloadBuild, input: ReloadBuildInput, perRunName: string): string[] {
  const into = formatTargetTable(build.table);
  const notes = [
    build.phase === "start"
      ? `--reload builds the new table in ${into} window by window, over as many runs as ${perRunName} needs; the old table stays live and unchanged until the swap`
      : `a reload started by run ${build.id} is being built in ${into}: a plain load continues it, and the live table is not loaded incrementally until the swap; \`--reload --restart\` starts it over`,
  ];
  if (input.restartReason) notes.push(input.restartReason);
  return notes;
}
