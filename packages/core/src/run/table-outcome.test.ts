import { describe, expect, it } from "vitest";
import { integerCursor } from "../cursor/cursor-value.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import { classifyFailure, tableResult } from "./table-outcome.js";

const context = { table: "raw.t", interrupted: false, committedAnything: false, fallback: "load of raw.t failed" };

describe("classifyFailure", () => {
  it("fails a table on a coded error, keeping its code", () => {
    const outcome = classifyFailure(new SqlloadError("SL301", "duplicate key"), context);
    expect(outcome).toMatchObject({ status: "failed", event: "table_failed" });
    expect(outcome.error.code).toBe("SL301");
  });

  it("codes what has no code with the fallback", () => {
    const outcome = classifyFailure(new Error("boom"), context);
    expect(outcome.error.code).toBe("SL304");
    expect(outcome.error.message).toContain("load of raw.t failed");
  });

  it("skips a retryable failure before anything committed, and fails it after", () => {
    const locked = new SqlloadError("SL306", "locked", { retryable: true });
    expect(classifyFailure(locked, context)).toMatchObject({ status: "skipped", event: "table_skipped" });
    expect(classifyFailure(locked, { ...context, committedAnything: true })).toMatchObject({ status: "failed" });
  });

  it("says an uncoded error after an interruption is the interruption", () => {
    expect(classifyFailure(new Error("aborted"), { ...context, interrupted: true }).error.code).toBe("SL307");
    const coded = new SqlloadError("SL305", "write failed");
    expect(classifyFailure(coded, { ...context, interrupted: true }).error.code).toBe("SL305");
  });
});

describe("tableResult", () => {
  it("reports caughtUp only for a loaded table", () => {
    const base = { table: "raw.t", source: "app", key: "t" };
    expect(tableResult({ ...base, status: "loaded", caughtUp: false, rows: 3, positionAfter: integerCursor(3) })).toMatchObject({
      caughtUp: false,
      rows: 3,
      dropped: 0,
      positionBefore: null,
    });
    expect("caughtUp" in tableResult({ ...base, status: "failed", caughtUp: true })).toBe(false);
  });
});
