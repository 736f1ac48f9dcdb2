import { describe, expect, it } from "vitest";
import { formatScaled } from "./scaled-decimal.js";

describe("formatScaled", () => {
  it.each([
    [12345, 2, "123.45"],
    [-5, 3, "-0.005"],
    [0, 2, "0.00"],
    [7, 0, "7"],
    [-9007199254740991, 4, "-900719925474.0991"],
  ])("%d at scale %d is %s", (value, scale, text) => {
    expect(formatScaled(value, scale)).toBe(text);
  });
});
