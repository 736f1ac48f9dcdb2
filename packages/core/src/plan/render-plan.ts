import { formatTargetTable } from "../connector/table-ref.js";
import { type CursorValue, cursorToJSON, formatCursor } from "../cursor/cursor-value.js";
import { CHUNK_BYTES, readsUnorderedFirst } from "./commit-mode.js";
import type { TablePlan } from "./plan-table.js";
import { reloadProgressLine } from "./reload-build.js";
import { windowAt } from "./windows.js";

/** The cursor line of SPEC §5: `cursor updated_at from 2026-10-12 16:00:00.000000+00 (destination maximum)`. */
export function cursorLine(plan: TablePlan): string | undefined {
  const cursor = plan.cursor;
  if (!cursor) return undefined;
  const { start, end } = plan;
  let text = `cursor ${cursor.column}`;
  if (!start.value) {
    text += plan.strategy === "replace" || plan.reload ? " everything (full read)" : " everything (first run, no cursor_start)";
  } else if (start.reason === "cursor_start") {
    text += plan.reloadBuild
      ? ` from cursor_start ${formatCursor(start.value)} (the reload's first window)`
      : ` first run, from cursor_start ${formatCursor(start.value)}`;
  } else {
    const word = start.inclusive ? "from" : "after";
    let reason: string = start.reason;
    if (start.reason === "destination maximum" && start.basis && start.value !== start.basis) {
      reason = `destination maximum ${formatCursor(start.basis)} minus lookback`;
    } else if (start.reason === "window position") {
      reason = plan.reloadBuild ? "end of the reload's last built window" : "end of the last committed window";
    } else if (start.reason === "rollback" && start.rollback) {
      reason = `rollback pending: continues from run ${start.rollback.runId}: ${start.rollback.reason}`;
    }
    text += ` ${word} ${formatCursor(start.value)} (${reason})`;
  }
  if (end) text += `, below ${formatCursor(end.value)} (${end.reason})`;
  return text;
}

/** The batch line of SPEC §7: how the table commits. */
export function batchLine(plan: TablePlan): string {
  const line = commitText(plan);
  return plan.publish === "end-of-run"
    ? `${line}, staged and published together at the end: a stopped run publishes nothing`
    : line;
}

function commitText(plan: TablePlan): string {
  switch (plan.commit) {
    case "swap":
      return "batch one commit at the end: a new table is built and swapped in";
    case "chunked": {
      const line = "batch commits about every 1 GB, in cursor order, only between distinct cursor values";
      if (!readsUnorderedFirst(plan.commit, plan.reckonedBytes, CHUNK_BYTES, plan.loggedState === true)) return line;
      const mb = Math.round((plan.reckonedBytes ?? 0) / 1e6);
      const size = mb < 1 ? "under 1 MB" : `${mb} MB`;
      return `${line}; reckoned at ${size}, it is read by a scan first and commits once, unless that read passes 1 GB`;
    }
    case "per-read":
      return plan.loggedState
        ? "batch one commit per checkpoint, and one for the rows after the last"
        : "batch one commit per read";
    case "per-window": {
      const w = plan.windows;
      if (!w || w.count === 0)
        return plan.reloadBuild ? "batch 0 windows left: the reload is swapped in" : "batch 0 windows: caught up";
      const bound = w.perRun !== undefined && w.perRun < w.count ? `, at most ${w.perRun} this run` : "";
      const checkpoints = plan.loggedState ? ", and one per checkpoint" : "";
      const build = plan.reloadBuild;
      const into = build ? ` into ${formatTargetTable(build.table)}` : "";
      const swap = build ? (bound ? ", swapped in once all are built" : ", then swapped in") : "";
      return `batch ${w.count} window${w.count === 1 ? "" : "s"} of ${w.size}${into}, one commit each${checkpoints}${bound}${swap}`;
    }
  }
}

/** The tree `plan` prints for one table. */
export function renderPlanTree(plan: TablePlan): string {
  const lines: string[] = [];
  if (plan.description) lines.push(`description ${plan.description}`);
  lines.push(
    `strategy ${plan.strategy}${plan.reload && plan.strategy !== "replace" ? " (--reload: rebuilt and swapped in)" : ""}`,
  );
  if (plan.columns) lines.push(`columns ${plan.columns.join(", ")}`);
  lines.push(batchLine(plan));
  for (const note of plan.notes) lines.push(`note ${note}`);
  for (const warning of plan.warnings ?? []) lines.push(`warning ${warning}`);
  const cursor = cursorLine(plan);
  if (cursor) lines.push(cursor);
  const progress = plan.reloadBuild ? ` (${reloadProgressLine(plan.reloadBuild)})` : "";
  const head = `${formatTargetTable(plan.target)} ← ${plan.source}.${plan.key}${progress}`;
  return [head, ...lines.map((line, i) => `${i === lines.length - 1 ? "└──" : "├──"} ${line}`)].join("\n");
}

const json = (value: CursorValue | undefined | null) => cursorToJSON(value ?? null);

/** The same facts as the tree, as JSON (`plan --json`). */
export function planToJSON(plan: TablePlan): Record<string, unknown> {
  const w = plan.windows;
  return {
    table: formatTargetTable(plan.target),
    source: plan.source,
    key: plan.key,
    description: plan.description ?? null,
    strategy: plan.strategy,
    reload: plan.reload,
    primaryKey: plan.primaryKey ?? null,
    columns: plan.columns ?? null,
    cursor: plan.cursor
      ? {
          column: plan.cursor.column,
          kind: plan.cursor.kind,
          nullable: plan.cursor.nullable,
          start: {
            reason: plan.start.reason,
            value: json(plan.start.value),
            inclusive: plan.start.inclusive,
            basis: json(plan.start.basis),
            rollback: plan.start.rollback ?? null,
          },
          end: plan.end ? { reason: plan.end.reason, value: json(plan.end.value) } : null,
          line: cursorLine(plan),
        }
      : null,
    includeNulls: plan.includeNulls,
    commit: plan.commit,
    loggedState: plan.loggedState === true,
    publish: plan.publish,
    batch: batchLine(plan),
    windows: w
      ? {
          count: w.count,
          size: w.size,
          perRun: w.perRun ?? null,
          first: w.count > 0 ? rangeJSON(windowAt(w, 0)) : null,
          last: w.count > 0 ? rangeJSON(windowAt(w, w.count - 1)) : null,
        }
      : null,
    reloadBuild: plan.reloadBuild
      ? {
          id: plan.reloadBuild.id ?? null,
          phase: plan.reloadBuild.phase,
          fresh: plan.reloadBuild.fresh,
          buildTable: formatTargetTable(plan.reloadBuild.table),
          windowsBuilt: plan.reloadBuild.windowsBuilt,
          windowsTotal: plan.reloadBuild.windowsTotal,
          line: reloadProgressLine(plan.reloadBuild),
        }
      : null,
    notes: plan.notes,
    warnings: plan.warnings ?? [],
  };
}

function rangeJSON(range: { from?: CursorValue | undefined; to?: CursorValue | undefined }) {
  return { from: json(range.from), to: json(range.to) };
}
