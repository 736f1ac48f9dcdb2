import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { batchFromRows, batchToRows } from "../connector/record-batch.js";
import { integerCursor, textCursor } from "../cursor/cursor-value.js";
import { inCursorRange, keepInRange, overlapsCursorRange, spanInCursorRange } from "./range-filter.js";

describe("inCursorRange", () => {
  it("takes from inclusive (or exclusive when asked) and to exclusive", () => {
    const range = { from: integerCursor(10n), to: integerCursor(20n) };
    expect([9n, 10n, 19n, 20n].map((v) => inCursorRange(integerCursor(v), range))).toEqual([false, true, true, false]);
    expect(inCursorRange(integerCursor(10n), { ...range, fromInclusive: false })).toBe(false);
  });

  it("compares text by code point, not by UTF-16 unit", () => {
    // U+FF5E sorts before U+1F600 by code point, after its surrogate pair by UTF-16 unit.
    expect(inCursorRange(textCursor("\uff5e"), { to: textCursor("😀") })).toBe(true);
  });
});

describe("overlapsCursorRange", () => {
  it("never rules out a span that holds a value of the range", () => {
    const bound = fc.option(fc.bigInt({ min: 0n, max: 12n }), { nil: undefined });
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 12n }),
        fc.bigInt({ min: 0n, max: 12n }),
        bound,
        bound,
        fc.boolean(),
        (a, b, from, to, inclusive) => {
          const [min, max] = a <= b ? [a, b] : [b, a];
          const range = {
            from: from === undefined ? undefined : integerCursor(from),
            to: to === undefined ? undefined : integerCursor(to),
            fromInclusive: inclusive,
          };
          let any = false;
          for (let v = min; v <= max; v++) any ||= inCursorRange(integerCursor(v), range);
          if (any) expect(overlapsCursorRange(integerCursor(min), integerCursor(max), range)).toBe(true);
        },
      ),
    );
  });

  it("rules out spans wholly before or after the range", () => {
    const range = { from: integerCursor(10n), to: integerCursor(20n) };
    expect(overlapsCursorRange(integerCursor(1n), integerCursor(9n), range)).toBe(false);
    expect(overlapsCursorRange(integerCursor(20n), integerCursor(30n), range)).toBe(false);
    expect(overlapsCursorRange(integerCursor(5n), integerCursor(10n), { ...range, fromInclusive: false })).toBe(false);
    expect(overlapsCursorRange(integerCursor(19n), integerCursor(30n), range)).toBe(true);
  });
});

describe("spanInCursorRange", () => {
  it("holds when both ends lie in the range", () => {
    const range = { from: integerCursor(10n), to: integerCursor(20n) };
    expect(spanInCursorRange(integerCursor(10n), integerCursor(19n), range)).toBe(true);
    expect(spanInCursorRange(integerCursor(10n), integerCursor(20n), range)).toBe(false);
    expect(spanInCursorRange(integerCursor(9n), integerCursor(12n), range)).toBe(false);
  });
});

describe("keepInRange", () => {
  it("drops rows outside the range and NULLs unless the read includes them", () => {
    const batch = batchFromRows([{ name: "k", type: { kind: "int64" }, nullable: true }], [{ k: null }, { k: 1n }, { k: 5n }]);
    const range = { from: integerCursor(2n) };
    expect(batchToRows(keepInRange(batch, 0, range, false).batch)).toEqual([{ k: 5n }]);
    expect(keepInRange(batch, 0, range, true).dropped).toBe(1);
  });
});
