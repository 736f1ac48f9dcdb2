import { describe, expect, it } from "vitest";
import { formatCount } from "./format-count.js";

describe("formatCount", () => {
  it("groups thousands as en-US does", () => {
    for (const n of [0, 7, 999, 1000, 12_345, 100_000, 1_000_000, 987_654_321, -1, -1234, -1_000_000, Number.MAX_SAFE_INTEGER]) {
      expect(formatCount(n)).toBe(n.toLocaleString("en-US"));
    }
  });

  it("leaves fractions and huge numbers to Intl", () => {
    expect(formatCount(1234.5)).toBe("1,234.5");
    expect(formatCount(2 ** 60)).toBe((2 ** 60).toLocaleString("en-US"));
  });
});
