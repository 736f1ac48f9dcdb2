import { describe, expect, it } from "vitest";
import { formatSeconds } from "./format.js";

describe("formatSeconds", () => {
  it("is tenths under 10 s, whole seconds under a minute, then minutes", () => {
    expect(formatSeconds(0.44)).toBe("0.4s");
    expect(formatSeconds(12.4)).toBe("12s");
    expect(formatSeconds(185)).toBe("3m05s");
  });
});
