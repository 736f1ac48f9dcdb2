import { describe, expect, it } from "vitest";
import { integerCursor } from "../cursor/cursor-value.js";
import { planTable } from "../plan/plan-table.js";
import { layWindows } from "../plan/windows.js";
import { commitSchedule, lookupFrom, nextWindow, startOfWalk } from "./commit-schedule.js";

const NOW = new Date("2026-10-15T12:00:00Z");
const plan = (settings: Parameters<typeof planTable>[0]["settings"], extra: Partial<Parameters<typeof planTable>[0]> = {}) =>
  planTable({
    source: "app",
    key: "t",
    target: { schema: "raw", name: "app__t" },
    settings: { cursorColumn: "k", ...settings },
    cursor: { column: "k", kind: "integer", nullable: true },
    targetMax: null,
    flags: {},
    now: NOW,
    ...extra,
  });

describe("commitSchedule: the commit mode, read once", () => {
  it("per-read: one pass, one commit, deleting the range under delete_insert", () => {
    const s = commitSchedule(plan({}), "transactional");
    expect(s).toMatchObject({ rebuild: false, unitStrategy: "delete_insert", deletesRange: true, commitsAtCommitPoints: false });
    expect(s.steps.kind === "passes" && s.steps.passes).toHaveLength(1);
    expect(s.publish).toBe("none");
    expect(s.reportsCaughtUp).toBe(false);
  });

  it("chunked: an ordered read committing at commit points", () => {
    const s = commitSchedule(plan({}, { orderedSource: true }), "transactional");
    expect(s.commitsAtCommitPoints).toBe(true);
    expect(s.commitsAtCheckpoints).toBe(true);
  });

  it("swap: every pass into one replace unit; checkpoints do not commit", () => {
    const s = commitSchedule(plan({ writeStrategy: "replace" }), "transactional");
    expect(s).toMatchObject({ rebuild: true, unitStrategy: "replace", deletesRange: false, commitsAtCheckpoints: false });
    const reload = commitSchedule(
      plan({ batchSize: 10n, cursorStart: "0", cursorEnd: "30" }, { flags: { reload: true } }),
      "staged",
    );
    expect(reload.rebuild).toBe(true);
    expect(reload.steps.kind === "passes" && reload.steps.passes.map((p) => p.window?.index)).toEqual([0, 1, 2]);
    // A rebuild on a staged target is visible at its one commit's publish.
    expect(reload.publish).toBe("each-commit");
  });

  it("per-window: windows walked one commit each, reporting whether caught up", () => {
    const staged = { commitModel: "staged" } as const;
    const s = commitSchedule(plan({ batchSize: 10n, cursorStart: "0", cursorEnd: "30", maxWindowsPerRun: 2 }, staged), "staged");
    expect(s.steps).toMatchObject({ kind: "windows", perRun: 2 });
    expect(s.reportsCaughtUp).toBe(true);
    expect(s.publish).toBe("end-of-run");
    const merge = { batchSize: 10n, cursorStart: "0", cursorEnd: "30", writeStrategy: "merge", primaryKey: ["id"] } as const;
    const merged = commitSchedule(plan(merge, staged), "staged");
    expect(merged.publish).toBe("each-commit");
    expect(merged.deletesRange).toBe(false);
    // The same plan on a transactional target publishes nothing: its commits are visible at once.
    expect(commitSchedule(plan(merge), "transactional").publish).toBe("none");
  });
});

describe("nextWindow: the walk over windows", () => {
  const windows = layWindows(integerCursor(0), integerCursor(50), 10n, "t");
  const i = (n: number) => integerCursor(n);

  it("reads every window in turn when the source cannot say where rows are", () => {
    let walk = startOfWalk;
    const read: number[] = [];
    for (;;) {
      const step = nextWindow(windows, Number.POSITIVE_INFINITY, walk, undefined);
      if (step.kind !== "read") {
        expect(step).toEqual({ kind: "stop", caughtUp: true });
        break;
      }
      read.push(step.pass.window!.index);
      walk = step.after;
    }
    expect(read).toEqual([0, 1, 2, 3, 4]);
  });

  it("skips to the window holding the source's next row, deleting the skipped ones too", () => {
    expect(lookupFrom(windows, startOfWalk)).toEqual(i(0));
    const step = nextWindow(windows, Number.POSITIVE_INFINITY, startOfWalk, i(33));
    expect(step.kind).toBe("read");
    if (step.kind !== "read") return;
    expect(step.window).toEqual({ from: i(30), to: i(40) });
    expect(step.pass.deleteRange).toEqual({ from: i(0), to: i(40) });
    expect(step.after).toEqual({ next: 4, read: 1 });
  });

  it("moves to the end in one empty commit when no rows are left before it", () => {
    const walk = { next: 2, read: 1 };
    for (const none of [null, i(50), i(99)]) {
      expect(nextWindow(windows, 1, walk, none)).toEqual({
        kind: "empty-to-end",
        range: { from: i(20), to: i(50) },
        window: { index: 4, count: 5 },
      });
    }
  });

  it("stops, not caught up, at the run's bound while rows remain", () => {
    expect(nextWindow(windows, 1, { next: 1, read: 1 }, i(12))).toEqual({ kind: "stop", caughtUp: false });
    expect(lookupFrom(windows, { next: 5, read: 5 })).toBeUndefined();
  });
});
