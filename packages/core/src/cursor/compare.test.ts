import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareCodePoints } from "./compare.js";

const sign = (n: number) => Math.sign(n);
const utf8Order = (a: string, b: string) => sign(Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8")));

// Strings that mix ASCII, the private-use/specials block U+E000–U+FFFF and astral characters,
// where UTF-16 code unit order and code point order disagree.
const tricky = fc.string({
  unit: fc.oneof(
    fc.constantFrom("a", "B", "1", "\uE000", "\uFFFD", "\uFB01", "\u{1F600}", "\u{10000}", "\u{10FFFF}", "é", "e\u0301"),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  ),
  maxLength: 8,
});

describe("compareCodePoints", () => {
  it("orders 'B1' before 'a9' (code point, not linguistic order)", () => {
    expect(compareCodePoints("B1", "a9")).toBeLessThan(0);
  });

  it("puts astral characters after U+E000–U+FFFF, where JavaScript's < is wrong", () => {
    const astral = "\u{1F600}";
    const specials = "\uFFFD";
    expect(astral < specials).toBe(true); // UTF-16 code units: 0xD83D < 0xFFFD
    expect(compareCodePoints(astral, specials)).toBeGreaterThan(0);
    expect(compareCodePoints("\u{10000}", "\uE000")).toBeGreaterThan(0);
  });

  it("orders a prefix first and equal strings as equal", () => {
    expect(compareCodePoints("", "a")).toBeLessThan(0);
    expect(compareCodePoints("ab", "abc")).toBeLessThan(0);
    expect(compareCodePoints("\u{1F600}x", "\u{1F600}x")).toBe(0);
  });

  it("agrees with comparing UTF-8 bytes for any strings, astral characters included", () => {
    fc.assert(
      fc.property(tricky, tricky, (a, b) => {
        expect(sign(compareCodePoints(a, b))).toBe(utf8Order(a, b));
      }),
      { numRuns: 5000 },
    );
  });

  it("is antisymmetric and transitive as a sort order", () => {
    fc.assert(
      fc.property(fc.array(tricky, { maxLength: 20 }), (values) => {
        const sorted = [...values].sort(compareCodePoints);
        for (let i = 1; i < sorted.length; i++)
          expect(utf8Order(sorted[i - 1] as string, sorted[i] as string)).toBeLessThanOrEqual(0);
      }),
    );
  });
});
