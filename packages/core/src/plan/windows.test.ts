import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareCursor } from "../cursor/cursor-value.js";
import { layWindows, windowAt, windowIndexOf } from "./windows.js";

describe("windows", () => {
  it("cover [start, end) exactly, without overlap or gap, for random sizes and bounds", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("integer" as const, "timestamp" as const, "date" as const),
        fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }),
        fc.bigInt({ min: 0n, max: 10n ** 6n }),
        fc.bigInt({ min: 10n, max: 10n ** 5n }),
        (kind, startN, spanN, step) => {
          const from = kind === "date" ? startN % 1_000_000n : startN;
          const asValue = (n: bigint) => (kind === "date" ? { kind, value: Number(n) } : { kind, value: n });
          const start = asValue(from);
          const end = asValue(from + spanN);
          const spec = layWindows(start, end, step, "t");
          if (spanN === 0n) {
            expect(spec.count).toBe(0);
            return;
          }
          expect(compareCursor(windowAt(spec, 0).from!, start)).toBe(0);
          expect(compareCursor(windowAt(spec, spec.count - 1).to!, end)).toBe(0);
          for (let k = 1; k < Math.min(spec.count, 50); k++) {
            expect(compareCursor(windowAt(spec, k).from!, windowAt(spec, k - 1).to!)).toBe(0);
          }
          const last = windowAt(spec, spec.count - 1);
          expect(compareCursor(last.from!, last.to!)).toBeLessThan(0);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("finds the window holding a value", () => {
    const spec = layWindows({ kind: "integer", value: 0n }, { kind: "integer", value: 100n }, 10n, "t");
    expect(windowIndexOf(spec, { kind: "integer", value: 0n })).toBe(0);
    expect(windowIndexOf(spec, { kind: "integer", value: 19n })).toBe(1);
    expect(windowIndexOf(spec, { kind: "integer", value: 99n })).toBe(9);
  });
});
