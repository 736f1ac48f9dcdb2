import { describe, expect, it } from "vitest";
import { type ErrorCode, type ErrorCodeInfo, errorCategory, errorCodes } from "./codes.js";

const entries = Object.entries(errorCodes) as [ErrorCode, ErrorCodeInfo][];

describe("error categories", () => {
  it("puts every retryable code, and only those, in the retry category", () => {
    for (const [code, info] of entries) expect([code, info.category === "retry"]).toEqual([code, info.retryable === true]);
  });

  it("makes configuration codes config and the interrupt its own category", () => {
    expect(entries.filter(([code]) => code.startsWith("SL1")).every(([, info]) => info.category === "config")).toBe(true);
    expect(entries.filter(([, info]) => info.category === "interrupt").map(([code]) => code)).toEqual(["SL307"]);
    expect(errorCategory("SL900")).toBe("internal");
  });

  it("answers internal for a code this core does not know", () => {
    expect(errorCategory("SL999" as ErrorCode)).toBe("internal");
  });
});
