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
});
