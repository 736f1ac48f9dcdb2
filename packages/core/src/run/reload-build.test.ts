import { describe, expect, it } from "vitest";
import type { Column } from "../connector/logical-types.js";
import type { TargetTableRef } from "../connector/table-ref.js";
import { reloadProgressLine } from "../plan/reload-build.js";
import { batchLine, renderPlanTree } from "../plan/render-plan.js";
import { loggedPosition } from "../state/logged-state.js";
import { reloadInProgress } from "../state/reload-progress.js";
import { runHistory } from "../state/run-history.js";
import { decodeRunLogRow } from "../state/run-log.js";
import { MemorySource } from "./testing/memory-source.js";
import { MemoryTarget } from "./testing/memory-target.js";
import { runMemoryTable, TARGET_REF } from "./testing/run-memory-table.js";

const columns: Column[] = [
  { name: "id", type: { kind: "int64" }, nullable: false },
  { name: "k", type: { kind: "int64" }, nullable: true },
  { name: "v", type: { kind: "text" }, nullable: true },
];
const BUILD = { schema: "raw", name: "app__t__sqlload_reload" };
/** One row per cursor value 0, 5, 10, … 55: two rows in each of six windows of 10. */
const rows = (v: string) => Array.from({ length: 12 }, (_, i) => ({ id: BigInt(i + 1), k: BigInt(i * 5), v }));
const source = (v: string) => new MemorySource({ columns, rows: rows(v), cursorColumn: "k" });
const settings = { batchSize: 10n, cursorStart: "0", cursorEnd: "60", maxWindowsPerRun: 2 } as const;
const values = (target: MemoryTarget, ref: TargetTableRef = TARGET_REF) =>
  target
    .rows(ref)
    .map((r) => `${r.k}:${r.v}`)
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
const records = (target: MemoryTarget) => target.runLog.map((row, i) => decodeRunLogRow(row, i));

/** A target holding the table as loaded from the "old" source, all six windows. */
async function loadedTarget(capabilities = { resumableReload: true }): Promise<MemoryTarget> {
  const target = new MemoryTarget(capabilities);
  await runMemoryTable(source("old"), target, settings, { flags: { maxWindows: 10 }, runId: "first" });
  expect(values(target)).toHaveLength(12);
  return target;
}

describe("resumable reload of a windowed table", () => {
  it("builds a new table window by window across bounded runs, the old one live until the swap", async () => {
    const target = await loadedTarget();
    const old = values(target);

    const r1 = await runMemoryTable(source("new"), target, settings, { flags: { reload: true }, runId: "r1" });
    const plan1 = r1.of("table_started")[0]!.plan;
    expect(plan1.commit).toBe("per-window");
    expect(plan1.reloadBuild).toMatchObject({ phase: "start", fresh: true, windowsBuilt: 0, windowsTotal: 6 });
    expect(renderPlanTree(plan1).split("\n")[0]).toBe(
      "raw.app__t ← app.t (reload starting, window 1 of 6, old table live until the swap)",
    );
    expect(batchLine(plan1)).toBe(
      "batch 6 windows of 10 into raw.app__t__sqlload_reload, one commit each, at most 2 this run, swapped in once all are built",
    );
    expect(r1.result).toMatchObject({ status: "loaded", rows: 4, windows: 2, caughtUp: false, reload: "building" });
    expect(values(target)).toEqual(old);
    expect(values(target, BUILD)).toEqual(["0:new", "5:new", "10:new", "15:new"]);

    // A plain run continues the reload; the live table is not loaded incrementally meanwhile.
    const r2 = await runMemoryTable(source("new"), target, settings, { runId: "r2" });
    const plan2 = r2.of("table_started")[0]!.plan;
    expect(plan2.reloadBuild).toMatchObject({ id: "r1", phase: "resume", windowsBuilt: 2, windowsTotal: 6 });
    expect(reloadProgressLine(plan2.reloadBuild!)).toBe("reload in progress, window 3 of 6, old table live until the swap");
    expect(plan2.start).toMatchObject({ reason: "window position", value: { kind: "integer", value: 20n } });
    expect(plan2.notes.join("\n")).toContain("a plain load continues it, and the live table is not loaded incrementally");
    expect(r2.result).toMatchObject({ rows: 4, windows: 2, caughtUp: false, reload: "building" });
    expect(r2.of("window_committed").map((e) => e.window)).toEqual([
      { index: 2, count: 6 },
      { index: 3, count: 6 },
    ]);
    expect(values(target)).toEqual(old);

    const r3 = await runMemoryTable(source("new"), target, settings, { runId: "r3" });
    expect(r3.result).toMatchObject({ rows: 4, windows: 2, caughtUp: true, reload: "swapped" });
    expect(values(target)).toEqual(rows("new").map((r) => `${r.k}:new`));
    expect(target.tables.has("raw.app__t__sqlload_reload")).toBe(false);

    const reloads = records(target).filter((r) => r.reload);
    expect(reloads.map((r) => `${r.runId} ${r.reload!.id} ${r.reload!.phase}`)).toEqual([
      "r1 r1 start",
      "r1 r1 build",
      "r1 r1 build",
      "r2 r1 build",
      "r2 r1 build",
      "r3 r1 build",
      "r3 r1 build",
      "r3 r1 swap",
    ]);
    // Build records are format 2, so a sqlload that knows no reloads refuses them; the swap is format 1.
    expect(target.runLog.filter((row) => row.formatVersion === 2)).toHaveLength(7);
    expect(reloadInProgress(loggedPosition(target.runLog).history)).toBeUndefined();
    const history = runHistory(loggedPosition(target.runLog).history);
    expect(history.slice(0, 3).map((run) => [run.runId, run.reload])).toEqual([
      ["r3", { id: "r1", swapped: true }],
      ["r2", { id: "r1", swapped: false }],
      ["r1", { id: "r1", swapped: false }],
    ]);

    // After the swap, incremental runs continue from the build's position (caught up at the end).
    const after = await runMemoryTable(source("new"), target, settings, { runId: "r4" });
    const plan4 = after.of("table_started")[0]!.plan;
    expect(plan4.reloadBuild).toBeUndefined();
    expect(plan4.start.reason).toBe("window position");
    expect(after.result).toMatchObject({ rows: 0, caughtUp: true });
    expect(after.result.reload).toBeUndefined();
  });

  it("refuses --reload while one is in progress (SL213, naming --restart); --restart drops the build and starts over", async () => {
    const target = await loadedTarget();
    await runMemoryTable(source("new"), target, settings, { flags: { reload: true }, runId: "r1" });
    // Refused while planning, before anything is read or dropped.
    await expect(runMemoryTable(source("new"), target, settings, { flags: { reload: true }, runId: "r2" })).rejects.toMatchObject(
      { code: "SL213", hint: expect.stringContaining("--reload --restart") },
    );
    expect(values(target, BUILD)).toHaveLength(4);

    const restarted = await runMemoryTable(source("newer"), target, settings, {
      flags: { reload: true, restart: true },
      runId: "r3",
    });
    expect(restarted.of("table_started")[0]!.plan.reloadBuild).toMatchObject({ id: undefined, phase: "start", fresh: true });
    expect(values(target, BUILD)).toEqual(["0:newer", "5:newer", "10:newer", "15:newer"]);
    expect(reloadInProgress(loggedPosition(target.runLog).history)?.id).toBe("r3");
  });

  it("the run that started a reload, executed again (a queue job), continues it rather than refusing it", async () => {
    const target = await loadedTarget();
    await runMemoryTable(source("new"), target, settings, { flags: { reload: true }, runId: "r1" });
    const again = await runMemoryTable(source("new"), target, settings, { flags: { reload: true }, runId: "r1" });
    expect(again.of("table_started")[0]!.plan.reloadBuild).toMatchObject({ id: "r1", phase: "resume", windowsBuilt: 2 });
    expect(values(target, BUILD)).toHaveLength(8);
  });

  it("a run that fails in window k resumes at window k, nothing doubled", async () => {
    const target = await loadedTarget();
    const commitsBefore = target.calls.commit;
    // The reload's start record is commit 1, its first window commit 2: the second window fails.
    target.failures = [{ op: "commit", nth: commitsBefore + 3 }];
    const failed = await runMemoryTable(source("new"), target, settings, { flags: { reload: true }, runId: "r1" });
    expect(failed.result).toMatchObject({ status: "failed", rows: 2, windows: 1 });
    expect(values(target, BUILD)).toEqual(["0:new", "5:new"]);

    const resumed = await runMemoryTable(source("new"), target, { ...settings, maxWindowsPerRun: 10 }, { runId: "r2" });
    expect(resumed.of("table_started")[0]!.plan.start.value).toEqual({ kind: "integer", value: 10n });
    expect(resumed.result).toMatchObject({ status: "loaded", rows: 10, windows: 5, reload: "swapped" });
    expect(values(target)).toEqual(rows("new").map((r) => `${r.k}:new`));
  });

  it("a failed swap leaves the old table live; the next run only swaps", async () => {
    const target = await loadedTarget();
    target.failures = [{ op: "swap", nth: 1 }];
    const all = { ...settings, maxWindowsPerRun: 10 };
    const failed = await runMemoryTable(source("new"), target, all, { flags: { reload: true }, runId: "r1" });
    expect(failed.result.status).toBe("failed");
    expect(values(target).every((v) => v.endsWith(":old"))).toBe(true);
    const swapped = await runMemoryTable(source("new"), target, all, { runId: "r2" });
    expect(swapped.of("table_started")[0]!.plan.reloadBuild).toMatchObject({ windowsBuilt: 6, windowsTotal: 6 });
    expect(swapped.result).toMatchObject({ status: "loaded", rows: 0, reload: "swapped" });
    expect(values(target)).toEqual(rows("new").map((r) => `${r.k}:new`));
  });

  it("starts over from the first window when the build table was dropped by hand (the data wins)", async () => {
    const target = await loadedTarget();
    await runMemoryTable(source("new"), target, settings, { flags: { reload: true }, runId: "r1" });
    target.tables.delete("raw.app__t__sqlload_reload");
    const run = await runMemoryTable(source("new"), target, settings, { runId: "r2" });
    const plan = run.of("table_started")[0]!.plan;
    expect(plan.reloadBuild).toMatchObject({ id: "r1", phase: "resume", fresh: true, windowsBuilt: 0 });
    expect(plan.notes.join("\n")).toContain("raw.app__t__sqlload_reload is gone: the reload starts over");
    expect(values(target, BUILD)).toEqual(["0:new", "5:new", "10:new", "15:new"]);
  });

  it("builds the new table from the source's current columns, so a reload fixes a refused type change", async () => {
    const target = await loadedTarget();
    const narrowed: Column[] = [columns[0]!, columns[1]!, { name: "v", type: { kind: "int32" }, nullable: true }];
    const changed = () =>
      new MemorySource({ columns: narrowed, rows: rows("x").map((r) => ({ ...r, v: 7 })), cursorColumn: "k" });
    await expect(runMemoryTable(changed(), target, settings, { runId: "r0" })).rejects.toMatchObject({ code: "SL312" });
    await runMemoryTable(changed(), target, settings, { flags: { reload: true }, runId: "r1" });
    expect(target.tables.get("raw.app__t__sqlload_reload")?.columns.find((c) => c.name === "v")?.type).toEqual({ kind: "int32" });
    const resumed = await runMemoryTable(changed(), target, { ...settings, maxWindowsPerRun: 10 }, { runId: "r2" });
    expect(resumed.result).toMatchObject({ status: "loaded", reload: "swapped" });
    expect(target.tables.get("raw.app__t")?.columns.find((c) => c.name === "v")?.type).toEqual({ kind: "int32" });
  });

  it("keeps today's one-commit reload on a target without resumableReload, and says so", async () => {
    const target = await loadedTarget({ resumableReload: false });
    const run = await runMemoryTable(source("new"), target, settings, { flags: { reload: true }, runId: "r1" });
    const plan = run.of("table_started")[0]!.plan;
    expect(plan.commit).toBe("swap");
    expect(plan.reloadBuild).toBeUndefined();
    expect(plan.notes).toContain(
      "--reload rebuilds the table in one run over all 6 windows: max_windows_per_run does not apply (the target cannot resume a reload)",
    );
    expect(run.result).toMatchObject({ status: "loaded", rows: 12, commits: 1 });
    expect(values(target)).toEqual(rows("new").map((r) => `${r.k}:new`));
  });

  it("leaves non-windowed and replace tables as they were: one rebuild, swapped in the same run", async () => {
    for (const extra of [{ batchSize: undefined, maxWindowsPerRun: undefined }, { writeStrategy: "replace" as const }]) {
      const target = await loadedTarget();
      const run = await runMemoryTable(source("new"), target, { ...settings, ...extra }, { flags: { reload: true } });
      expect(run.of("table_started")[0]!.plan.reloadBuild).toBeUndefined();
      expect(run.result).toMatchObject({ status: "loaded", rows: 12, commits: 1 });
      expect(target.tables.has("raw.app__t__sqlload_reload")).toBe(false);
    }
  });
});
