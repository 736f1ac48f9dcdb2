import type { RunSummary } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { runStatus } from "./run-history.js";

const run = (extra: Partial<RunSummary> = {}): RunSummary => ({
  runId: "r2",
  event: "run",
  startedAt: "2026-12-01T00:00:00.000Z",
  endedAt: "2026-12-01T00:00:01.000Z",
  rows: 4,
  commits: 2,
  windows: 2,
  before: null,
  after: { cursor: null, windowEnd: null, state: undefined },
  notes: [],
  unreadable: 0,
  ...extra,
});

describe("runStatus", () => {
  it("marks the runs of a resumable reload: building, then swapped in", () => {
    expect(runStatus(run(), undefined)).toBe("committed");
    expect(runStatus(run({ reload: { id: "r1", swapped: false } }), undefined)).toBe(
      "committed (reload r1: building, old table live)",
    );
    expect(runStatus(run({ reload: { id: "r1", swapped: true } }), undefined)).toBe("committed (reload r1: swapped in)");
    expect(runStatus(run({ reload: { id: "r1", swapped: false } }), { runId: "r2", code: "SL304" })).toBe(
      "failed (SL304) after 2 commits (reload r1: building, old table live)",
    );
  });
});
