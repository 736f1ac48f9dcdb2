import { describe, expect, it } from "vitest";
import type { TableResult } from "../events/run-event.js";
import { runPasses } from "./run-loop.js";
import type { LoadResult } from "./run-project.js";

const table = (over: Partial<TableResult>): TableResult => ({
  table: "raw.src__t",
  source: "src",
  key: "t",
  status: "loaded",
  rows: 10,
  dropped: 0,
  windows: 1,
  positionBefore: null,
  positionAfter: null,
  seconds: 0,
  ...over,
});

/** Passes that return the given tables in turn, recording which passes ran. */
function script(...passes: TableResult[][]) {
  const ran: number[] = [];
  const runPass = async (pass: number): Promise<LoadResult> => {
    ran.push(pass);
    const results = passes[Math.min(pass, passes.length) - 1] ?? [];
    return { runId: `r${pass}`, startedAt: "2026-12-01T00:00:00.000Z", results, seconds: 0 };
  };
  return { ran, runPass };
}

const signal = new AbortController().signal;

describe("runPasses", () => {
  it("runs one pass without --until-caught-up, even when not caught up", async () => {
    const { ran, runPass } = script([table({ caughtUp: false })]);
    const out = await runPasses(runPass, { untilCaughtUp: false, maxRuns: 100, signal });
    expect(ran).toEqual([1]);
    expect(out).toMatchObject({ passes: 1, caughtUp: false, stoppedAtMaxRuns: false });
  });

  it("runs passes until caught up, with no extra empty pass, summing rows", async () => {
    const { ran, runPass } = script(
      [table({ caughtUp: false, rows: 7 })],
      [table({ caughtUp: false, rows: 5 })],
      [table({ caughtUp: true, rows: 3 })],
    );
    const out = await runPasses(runPass, { untilCaughtUp: true, maxRuns: 100, signal });
    expect(ran).toEqual([1, 2, 3]);
    expect(out).toMatchObject({ passes: 3, rows: 15, caughtUp: true, stoppedAtMaxRuns: false });
    expect(out.last.runId).toBe("r3");
  });

  it("stops at maxRuns and says so", async () => {
    const { ran, runPass } = script([table({ caughtUp: false })]);
    const out = await runPasses(runPass, { untilCaughtUp: true, maxRuns: 4, signal });
    expect(ran).toEqual([1, 2, 3, 4]);
    expect(out).toMatchObject({ passes: 4, caughtUp: false, stoppedAtMaxRuns: true });
  });

  it("ends on a pass that failed or skipped a table, with that pass as the last", async () => {
    for (const status of ["failed", "skipped"] as const) {
      const { ran, runPass } = script([table({ caughtUp: false })], [table({ status, rows: 2, caughtUp: false })]);
      const out = await runPasses(runPass, { untilCaughtUp: true, maxRuns: 100, signal });
      expect(ran).toEqual([1, 2]);
      expect(out).toMatchObject({ passes: 2, rows: 12, caughtUp: false, stoppedAtMaxRuns: false });
      expect(out.last.results[0]?.status).toBe(status);
    }
  });

  it("starts no pass after an interrupt", async () => {
    const controller = new AbortController();
    const ran: number[] = [];
    const out = await runPasses(
      async (pass) => {
        ran.push(pass);
        controller.abort();
        return { runId: "r", startedAt: "", results: [table({ caughtUp: false })], seconds: 0 };
      },
      { untilCaughtUp: true, maxRuns: 100, signal: controller.signal },
    );
    expect(ran).toEqual([1]);
    expect(out.stoppedAtMaxRuns).toBe(false);
  });

  it("counts a table without an end or per-run bound as caught up", async () => {
    const { ran, runPass } = script([table({ caughtUp: undefined })]);
    expect((await runPasses(runPass, { untilCaughtUp: true, maxRuns: 100, signal })).caughtUp).toBe(true);
    expect(ran).toEqual([1]);
  });
});
