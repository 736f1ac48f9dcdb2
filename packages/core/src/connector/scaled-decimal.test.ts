import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatScaled, parseScaled } from "./scaled-decimal.js";

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

describe("parseScaled", () => {
  it.each([
    ["-12.34", 2, -1234],
    ["12.300", 2, 1230],
    [".5", 2, 50],
    ["1.", 2, 100],
    ["+7", 0, 7],
    ["999999999999999", 0, 999999999999999],
    ["99999.9999999999", 10, 999999999999999],
  ])("%s at scale %d is %d", (text, scale, value) => {
    expect(parseScaled(text, scale)).toBe(value);
  });

  it.each([
    ["1.234", 2], // a digit past the scale: rounding, left to the exact path
    ["1000000000000000", 0], // 16 digits
    ["1.5", 15], // 16 digits once scaled
    [" 1", 0],
    ["1e5", 0],
    ["", 2],
    ["-", 2],
    [".", 2],
    ["1.2.3", 2],
    ["NaN", 2],
  ])("%s at scale %d is left to the exact path (NaN)", (text, scale) => {
    expect(parseScaled(text, scale)).toBeNaN();
  });

  it("agrees with exact arithmetic wherever it gives a value", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
        fc.integer({ min: 0, max: 18 }),
        fc.integer({ min: 0, max: 18 }),
        (units, scale, point) => {
          const digits = (units < 0n ? -units : units).toString().padStart(point + 1, "0");
          const text = `${units < 0n ? "-" : ""}${point > 0 ? `${digits.slice(0, -point)}.${digits.slice(-point)}` : digits}`;
          const value = parseScaled(text, scale);
          if (Number.isNaN(value)) return;
          // units × 10^-point × 10^scale, exactly: a value is given only when no digit is lost.
          expect(point <= scale || units % 10n ** BigInt(point - scale) === 0n).toBe(true);
          const exact = point <= scale ? units * 10n ** BigInt(scale - point) : units / 10n ** BigInt(point - scale);
          expect(BigInt(value)).toBe(exact);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
