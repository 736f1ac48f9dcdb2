import { type CursorRange, integerCursor } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { spanMayOverlap } from "./clickhouse-range.js";
import { coalesce, type StagedDelete } from "./clickhouse-stage.js";

describe("staged deletes", () => {
  const del = (range: CursorRange, includeNulls = false): StagedDelete => ({ column: "c", kind: "integer", range, includeNulls });
  const r = (from: number | undefined, to: number | undefined, fromInclusive?: boolean): CursorRange => ({
    ...(from !== undefined ? { from: integerCursor(from) } : {}),
    ...(to !== undefined ? { to: integerCursor(to) } : {}),
    ...(fromInclusive === false ? { fromInclusive } : {}),
  });

  it("coalesces touching windows into one range and keeps gaps", () => {
    const merged = coalesce([del(r(20, 30)), del(r(0, 10)), del(r(10, 20)), del(r(40, 50))]);
    expect(merged.map((d) => [d.range.from?.value, d.range.to?.value])).toEqual([
      [0n, 30n],
      [40n, 50n],
    ]);
    expect(coalesce([del(r(0, 10)), del(r(5, undefined))]).map((d) => d.range.to)).toEqual([undefined]);
    // (10, 20) does not cover 10 itself: [0, 10) and it stay apart.
    expect(coalesce([del(r(0, 10)), del(r(10, 20, false))])).toHaveLength(2);
    // On equal starts the inclusive range leads, so the start value stays deleted.
    expect(
      coalesce([del(r(10, 20, false)), del(r(10, 15))]).map((d) => [
        d.range.from?.value,
        d.range.fromInclusive,
        d.range.to?.value,
      ]),
    ).toEqual([[10n, undefined, 20n]]);
  });

  it("tells when a delete cannot touch staged rows", () => {
    const span = { min: integerCursor(10), max: integerCursor(19), nulls: true, rows: 5 };
    expect(spanMayOverlap(span, r(20, 30), false)).toBe(false);
    expect(spanMayOverlap(span, r(0, 10), false)).toBe(false);
    expect(spanMayOverlap(span, r(19, 20), false)).toBe(true);
    expect(spanMayOverlap(span, r(19, 20, false), false)).toBe(false);
    expect(spanMayOverlap(span, r(30, 40), true)).toBe(true);
    expect(spanMayOverlap({ min: null, max: null, nulls: false, rows: 0 }, r(undefined, undefined), true)).toBe(false);
  });
});
