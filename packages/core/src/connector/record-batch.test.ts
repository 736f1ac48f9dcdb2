import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CursorValue, compareCursor, maxCursor } from "../cursor/cursor-value.js";
import type { Column } from "./logical-types.js";
import { batchFromRows, columnCursorSpan, columnMaxCursor, cursorAt, sliceBatch } from "./record-batch.js";

const naiveMax = (batch: ReturnType<typeof batchFromRows>): CursorValue | null => {
  let best: CursorValue | null = null;
  for (let i = 0; i < batch.length; i++) best = maxCursor(best, cursorAt(batch, 0, i));
  return best;
};

describe("columnMaxCursor", () => {
  it("agrees with comparing cursor values one by one, NULLs and astral text included", () => {
    const text: Column[] = [{ name: "k", type: { kind: "text" }, nullable: true }];
    const big: Column[] = [{ name: "k", type: { kind: "int64" }, nullable: true }];
    const ts: Column[] = [{ name: "k", type: { kind: "timestamptz" }, nullable: true }];
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.string({ unit: "binary", maxLength: 4 }), { nil: null }), { maxLength: 30 }),
        (values) => {
          const batch = batchFromRows(
            text,
            values.map((k) => ({ k })),
          );
          expect(columnMaxCursor(batch, 0)).toEqual(naiveMax(batch));
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null }), { maxLength: 30 }),
        (values) => {
          const intBatch = batchFromRows(
            big,
            values.map((k) => ({ k })),
          );
          expect(columnMaxCursor(intBatch, 0)).toEqual(naiveMax(intBatch));
          const tsBatch = batchFromRows(
            ts,
            values.map((k) => ({ k })),
          );
          expect(columnMaxCursor(tsBatch, 0)).toEqual(naiveMax(tsBatch));
        },
      ),
    );
  });
});

describe("columnCursorSpan", () => {
  const naiveMin = (batch: ReturnType<typeof batchFromRows>): CursorValue | null => {
    let best: CursorValue | null = null;
    for (let i = 0; i < batch.length; i++) {
      const v = cursorAt(batch, 0, i);
      if (v && (!best || compareCursor(v, best) < 0)) best = v;
    }
    return best;
  };
  const column = (kind: "text" | "int64"): Column[] => [{ name: "k", type: { kind }, nullable: true }];

  it("agrees with comparing cursor values one by one, and sees NULLs", () => {
    const texts = fc.array(fc.option(fc.string({ unit: "binary", maxLength: 4 }), { nil: null }), { maxLength: 30 });
    const integers = fc.array(fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null }), { maxLength: 30 });
    for (const [kind, values] of [
      ["text", texts],
      ["int64", integers],
    ] as const) {
      fc.assert(
        fc.property(values as fc.Arbitrary<unknown[]>, (keys) => {
          const batch = batchFromRows(
            column(kind),
            keys.map((k) => ({ k })),
          );
          expect(columnCursorSpan(batch, 0)).toEqual({ min: naiveMin(batch), max: naiveMax(batch), nulls: keys.includes(null) });
        }),
      );
    }
  });
});

describe("sliceBatch", () => {
  it("gives rows [start, end) of every column, NULLs included", () => {
    const schema: Column[] = [
      { name: "k", type: { kind: "int64" }, nullable: true },
      { name: "s", type: { kind: "text" }, nullable: false },
    ];
    const batch = batchFromRows(schema, [
      { k: 1n, s: "a" },
      { k: null, s: "b" },
      { k: 3n, s: "c" },
    ]);
    const slice = sliceBatch(batch, 1, 3);
    expect(slice.length).toBe(2);
    expect([cursorAt(slice, 0, 0), cursorAt(slice, 1, 1)]).toEqual([null, { kind: "text", value: "c" }]);
    expect(sliceBatch(batch, 0, 3)).toBe(batch);
  });
});
