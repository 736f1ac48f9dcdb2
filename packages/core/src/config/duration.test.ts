import { describe, expect, it } from "vitest";
import { describeDuration, durationDaysCeil, parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it("reads whole numbers with units, combined", () => {
    expect(parseDuration("1h")?.micros).toBe(3_600_000_000n);
    expect(parseDuration("1d12h")?.micros).toBe(36n * 3_600_000_000n);
    expect(parseDuration("2w")?.micros).toBe(14n * 86_400_000_000n);
    expect(parseDuration("90s")?.micros).toBe(90_000_000n);
  });

  it("refuses anything else", () => {
    for (const bad of ["", "1", "h", "1.5h", "1H", "1 h", "-1h", "1h1h", "0s", "1y", "1d 2h"])
      expect(parseDuration(bad)).toBeUndefined();
  });

  it("rounds up to whole days for date cursors", () => {
    expect(durationDaysCeil(parseDuration("1h")!)).toBe(1);
    expect(durationDaysCeil(parseDuration("2d")!)).toBe(2);
    expect(durationDaysCeil(parseDuration("2d1s")!)).toBe(3);
  });

  it("describes itself as plan prints it", () => {
    expect(describeDuration(parseDuration("7d")!)).toBe("7days");
    expect(describeDuration(parseDuration("1d12h")!)).toBe("1day12hours");
  });
});
