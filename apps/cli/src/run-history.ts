import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cursorToJSON, cursorToString, type RunPositionFacts, type RunSummary } from "@sqlload/core";
import { stateText } from "./logged-state.js";

/** Failed tables of the last run, from `.sqlload/run_results.json`: the run log only holds what committed. */
export function lastRunFailures(projectDir: string): Map<string, { runId: string; code: string | undefined }> {
  const file = join(projectDir, ".sqlload", "run_results.json");
  const failures = new Map<string, { runId: string; code: string | undefined }>();
  if (!existsSync(file)) return failures;
  try {
    const results = JSON.parse(readFileSync(file, "utf8")) as {
      runId?: string;
      tables?: { table?: string; status?: string; error?: { code?: string } }[];
    };
    for (const t of results.tables ?? []) {
      if (t.table && t.status === "failed" && results.runId) failures.set(t.table, { runId: results.runId, code: t.error?.code });
    }
  } catch {
    // An unreadable results file only loses the failure marks.
  }
  return failures;
}

/** `committed`, `failed (SL304) after 2 commits`, `rollback to run …`, `reset`, `reconcile`. */
export function runStatus(run: RunSummary, failure: { runId: string; code: string | undefined } | undefined): string {
  if (run.unreadable > 0 && run.commits === 0) return "unreadable (SL500)";
  if (run.event === "rollback") return `rollback to run ${run.rollbackTo}`;
  if (run.event !== "run") return run.event;
  // A reload's build runs show the build's position; the live table's stays until the swap.
  const reload = run.reload
    ? run.reload.swapped
      ? ` (reload ${run.reload.id}: swapped in)`
      : ` (reload ${run.reload.id}: building, old table live)`
    : "";
  if (failure?.runId === run.runId)
    return `failed${failure.code ? ` (${failure.code})` : ""} after ${run.commits} commit${run.commits === 1 ? "" : "s"}${reload}`;
  return `committed${reload}`;
}

/** `5 (window end 2026-01-08)` with `state "tok"` for logged tables; `none` before anything. */
export function positionText(facts: RunPositionFacts | null): string {
  if (!facts) return "none";
  const parts = [facts.cursor ? cursorToString(facts.cursor) : "none"];
  if (facts.windowEnd) parts.push(`(window end ${cursorToString(facts.windowEnd)})`);
  if (facts.state !== undefined) parts.push(`state ${stateText(facts.state)}`);
  return parts.join(" ");
}

export function positionJSON(facts: RunPositionFacts | null): Record<string, unknown> | null {
  if (!facts) return null;
  return {
    cursor: cursorToJSON(facts.cursor),
    windowEnd: cursorToJSON(facts.windowEnd),
    ...(facts.state !== undefined ? { state: facts.state } : {}),
  };
}
