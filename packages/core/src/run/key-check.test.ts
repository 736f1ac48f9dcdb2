import { describe, expect, it } from "vitest";
import type { Column } from "../connector/logical-types.js";
import { batchFromRows } from "../connector/record-batch.js";
import { DuplicateKeyCheck } from "./key-check.js";

const columns: Column[] = [
  { name: "a", type: { kind: "int64" }, nullable: false },
  { name: "b", type: { kind: "text" }, nullable: false },
];
const rows = (...keys: [number, string][]) =>
  batchFromRows(
    columns,
    keys.map(([a, b]) => ({ a: BigInt(a), b })),
  );

describe("DuplicateKeyCheck", () => {
  it("refuses a composite key seen twice in one read, across batches, naming it", () => {
    const check = new DuplicateKeyCheck(["a", "b"], "raw.t");
    check.check(rows([1, "x"], [1, "y"], [2, "x"]));
    expect(() => check.check(rows([3, "z"], [1, "y"]))).toThrow(
      /primary key \(a = 1, b = y\) appears more than once in one read/,
    );
  });

  it("forgets what it saw once reset: a key repeated in a later commit is an update", () => {
    const check = new DuplicateKeyCheck(["a"], "raw.t");
    check.check(rows([1, "x"]));
    check.reset();
    expect(() => check.check(rows([1, "x"]))).not.toThrow();
  });

  it("refuses a key column the rows do not have", () => {
    expect(() => new DuplicateKeyCheck(["id"], "raw.t").check(rows([1, "x"]))).toThrow(
      expect.objectContaining({ code: "SL208" }),
    );
  });

  it("tells bigints apart past 2^53, where doubles round them together, and NULL from any value", () => {
    const check = new DuplicateKeyCheck(["a"], "raw.t");
    const big = 2n ** 53n;
    const keyed = (...values: (bigint | null)[]) =>
      batchFromRows(
        [{ ...(columns[0] as Column), nullable: true }],
        values.map((a) => ({ a })),
      );
    check.check(keyed(big, big + 1n, -big - 1n, 0n, null));
    expect(() => check.check(keyed(big + 2n, -big - 2n))).not.toThrow();
    expect(() => check.check(keyed(big + 1n))).toThrow(/primary key \(a = 9007199254740993\) appears more than once/);
    expect(() => check.check(keyed(null))).toThrow(/primary key \(a = null\)/);
  });

  it("takes text keys as they are: keys differing only by case or normalization are distinct, short or long", () => {
    const check = new DuplicateKeyCheck(["b"], "raw.t");
    const long = "x".repeat(1000);
    // A key of 13 characters is kept as JSON: it must not meet a text that is another's JSON.
    check.check(rows([1, "a"], [2, "A"], [3, "\u00e9"], [4, "e\u0301"], [5, "1"], [6, "abcdefghijklm"], [7, '"abcdefghijk"']));
    check.check(rows([8, "abcdefghijk"], [9, `${long}\u00e9`], [10, `${long}e\u0301`], [11, `"abcdefghijklm"`]));
    expect(() => check.check(rows([12, "e\u0301"]))).toThrow(/primary key \(b = e\u0301\)/);
    expect(() => check.check(rows([13, "abcdefghijklm"]))).toThrow(/primary key \(b = abcdefghijklm\)/);
    expect(() => check.check(rows([14, `${long}e\u0301`]))).toThrow(/appears more than once/);
  });

  it("holds more text keys than one JavaScript Set can (2^24) in one read, in Sets of a bounded size", () => {
    // Shards of 1,000 keys here: 2^24 keys take seconds to add.
    const check = new DuplicateKeyCheck(["b"], "raw.t", 1000);
    const add = (...keys: number[]) => check.check(rows(...keys.map((k): [number, string] => [k, `k${k}`])));
    for (let b = 0; b < 5; b++) add(...Array.from({ length: 999 }, (_, i) => b * 999 + i));
    expect(() => add(0)).toThrow(/primary key \(b = k0\) appears more than once/);
    expect(() => add(2500)).toThrow(/primary key \(b = k2500\)/);
    expect(() => add(4994)).toThrow(/primary key \(b = k4994\)/);
    add(4995);
    const sets = (check as unknown as { shards: Set<unknown>[] }).shards;
    expect(sets.map((set) => set.size)).toEqual([1000, 1000, 1000, 1000, 996]);
  });

  it("keeps integer, float and date keys as numbers, as a Set compares them", () => {
    const float: Column[] = [{ name: "a", type: { kind: "float64" }, nullable: true }];
    const check = new DuplicateKeyCheck(["a"], "raw.t");
    const add = (...keys: (number | null)[]) =>
      check.check(
        batchFromRows(
          float,
          keys.map((a) => ({ a })),
        ),
      );
    add(0.5, Number.NaN, 0, 1e300, -1e-300, null, 2 ** 31, -(2 ** 31) - 1);
    expect(() => add(-0)).toThrow(/primary key \(a = 0\)/);
    expect(() => add(Number.NaN)).toThrow(/primary key \(a = NaN\)/);
    expect(() => add(2 ** 31)).toThrow(/appears more than once/);
    add(0.25, 1e299, 2 ** 31 + 1);
    const numbers = (check as unknown as { numbers: { size: number } }).numbers;
    expect(numbers.size).toBe(10);
  });

  it("tells NaN, the infinities and NULL apart in a key of several columns", () => {
    const keyed: Column[] = [
      { name: "f", type: { kind: "float64" }, nullable: true },
      { name: "i", type: { kind: "int64" }, nullable: false },
    ];
    const check = new DuplicateKeyCheck(["f", "i"], "raw.t");
    const add = (...fs: (number | null)[]) =>
      check.check(
        batchFromRows(
          keyed,
          fs.map((f) => ({ f, i: 1n })),
        ),
      );
    add(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, null, 0);
    expect(() => add(Number.NEGATIVE_INFINITY)).toThrow(/primary key \(f = -Infinity, i = 1\)/);
    expect(() => add(Number.NaN)).toThrow(/primary key \(f = NaN, i = 1\)/);
    expect(() => add(null)).toThrow(/primary key \(f = null, i = 1\)/);
  });
});
