import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { integerCursor, textCursor, timestampCursor } from "../cursor/cursor-value.js";
import { inCursorRange } from "./range-filter.js";
import { TargetExtent } from "./target-extent.js";

describe("TargetExtent", () => {
  it("never rules out a range that holds a value the table may hold", () => {
    const value = fc.bigInt({ min: 0n, max: 12n });
    fc.assert(
      fc.property(
        fc.array(value, { maxLength: 4 }),
        fc.option(value, { nil: undefined }),
        fc.option(value, { nil: undefined }),
        fc.boolean(),
        (held, from, to, inclusive) => {
          const [first, ...written] = held;
          const extent = new TargetExtent(first === undefined ? null : integerCursor(first));
          for (const v of written) extent.wrote(integerCursor(v));
          const range = {
            from: from === undefined ? undefined : integerCursor(from),
            to: to === undefined ? undefined : integerCursor(to),
            fromInclusive: inclusive,
          };
          // The table may hold any value up to the highest seen, however low.
          const high = held.reduce((a, b) => (b > a ? b : a), -1n);
          const someHeld = high >= 0n && [...Array(Number(high) + 1).keys()].some((v) => inCursorRange(integerCursor(v), range));
          if (someHeld) expect(extent.mayHoldRowsIn(range, false)).toBe(true);
        },
      ),
    );
  });

  it("rules out a range that starts above everything held, at the boundary too", () => {
    const extent = new TargetExtent(integerCursor(10));
    expect(extent.mayHoldRowsIn({ from: integerCursor(11) }, false)).toBe(false);
    expect(extent.mayHoldRowsIn({ from: integerCursor(10) }, false)).toBe(true);
    // `append` reads strictly after the maximum.
    expect(extent.mayHoldRowsIn({ from: integerCursor(10), fromInclusive: false }, false)).toBe(false);
    expect(extent.mayHoldRowsIn({ from: integerCursor(9), fromInclusive: false }, false)).toBe(true);
  });

  it("is raised by what the run writes, and an empty or new table holds no range", () => {
    const extent = new TargetExtent(null);
    const window = { from: timestampCursor(1_000n), to: timestampCursor(2_000n) };
    expect(extent.mayHoldRowsIn(window, false)).toBe(false);
    extent.wrote(null);
    expect(extent.mayHoldRowsIn(window, false)).toBe(false);
    extent.wrote(timestampCursor(1_000n));
    expect(extent.mayHoldRowsIn(window, false)).toBe(true);
  });

  it("always may when NULL cursors are included or the range has no lower bound", () => {
    const extent = new TargetExtent(null);
    expect(extent.mayHoldRowsIn({ from: integerCursor(1) }, true)).toBe(true);
    expect(extent.mayHoldRowsIn({ to: integerCursor(1) }, false)).toBe(true);
  });

  it("compares text by code point", () => {
    // U+FF5E sorts before U+1F600 by code point, after its surrogate pair by UTF-16 unit.
    const extent = new TargetExtent(textCursor("\uff5e"));
    expect(extent.mayHoldRowsIn({ from: textCursor("😀") }, false)).toBe(false);
    expect(new TargetExtent(textCursor("😀")).mayHoldRowsIn({ from: textCursor("\uff5e") }, false)).toBe(true);
  });
});
