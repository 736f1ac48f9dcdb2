import { describe, expect, it } from "vitest";
import { hash, NumberSet } from "./number-set.js";

describe("NumberSet", () => {
  it("has what was added, as a Set of the same numbers would, through many doublings", () => {
    const set = new NumberSet();
    const reference = new Set<number>();
    // Integers in runs and strides (as keys come), halves, huge and tiny doubles, negatives, NaN, ±0, ±Infinity.
    const values: number[] = [
      Number.NaN,
      0,
      -0,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
    ];
    for (let i = 0; i < 100_000; i++) values.push(i, i * 1024, -i, i + 0.5, 2 ** 40 + i * 4096, (i * 7919) / 3, i * 1e-300);
    // One expect per value would take seconds: the values that went wrong are collected instead.
    const wrong: number[] = [];
    for (const value of values) {
      if (set.add(value) !== !reference.has(value)) wrong.push(value);
      reference.add(value);
    }
    for (const value of values) if (!set.has(value)) wrong.push(value);
    expect(wrong).toEqual([]);
    expect(set.size).toBe(reference.size);
    for (const absent of [1.25, -0.5, 2 ** 40 + 1, 100_000, 12_345_678.5, 2 ** 53])
      expect(set.has(absent)).toBe(reference.has(absent));
  });

  it("tells -0 and 0 alike and NaN from every number", () => {
    const set = new NumberSet();
    expect(set.add(-0)).toBe(true);
    expect(set.has(0)).toBe(true);
    expect(set.add(0)).toBe(false);
    expect(set.has(Number.NaN)).toBe(false);
    expect(set.add(Number.NaN)).toBe(true);
    expect(set.add(Number.NaN)).toBe(false);
    expect(set.size).toBe(2);
  });

  it("spreads keys that differ only in the high bits of either half of their doubles", () => {
    // Packed ids (tenant * 2^32 + id) and multiples of large powers of two: a hash that multiplied
    // the high half into the low gave the second pattern 4,096 hashes for 86,016 keys.
    const patterns = [
      Array.from({ length: 64 * 1024 }, (_, i) => (i >> 10) * 2 ** 32 + (i & 1023) * 2 ** 20),
      Array.from({ length: 4096 * 21 }, (_, i) => (2 ** 32 + (i % 4096)) * 2 ** Math.floor(i / 4096)),
    ];
    for (const values of patterns) {
      const slots = new Set(values.map((v) => hash(v) & 0xffff));
      expect(slots.size).toBeGreaterThan(0.6 * Math.min(values.length, 0x10000));
    }
  });
});
