import { batchFromRows, type LogicalType } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { bigqueryType, columnOf, fieldFits, fieldOf } from "./bigquery-types.js";
import { decodeCell, ndjsonLine } from "./bigquery-values.js";

describe("BigQuery types", () => {
  const cases: [LogicalType, string][] = [
    [{ kind: "int16" }, "INT64"],
    [{ kind: "float32" }, "FLOAT64"],
    [{ kind: "decimal", precision: 18, scale: 3 }, "NUMERIC(18,3)"],
    [{ kind: "decimal", precision: 38, scale: 10 }, "BIGNUMERIC(38,10)"],
    [{ kind: "decimal", precision: 40, scale: 2 }, "BIGNUMERIC(40,2)"],
    [{ kind: "uuid" }, "STRING"],
    [{ kind: "timestamp" }, "DATETIME"],
    [{ kind: "timestamptz" }, "TIMESTAMP"],
    [{ kind: "json" }, "JSON"],
  ];
  for (const [logical, expected] of cases) {
    it(`${JSON.stringify(logical)} is ${expected}`, () => {
      const t = bigqueryType(logical);
      expect(t.precision ? `${t.type}(${t.precision},${t.scale})` : t.type).toBe(expected);
    });
  }

  it("reads fields back to the types they were made from, lists as REPEATED", () => {
    const list = { name: "l", type: { kind: "list", element: { kind: "int64" } }, nullable: true } as const;
    expect(fieldOf(list)).toEqual({ name: "l", type: "INT64", mode: "REPEATED" });
    expect(columnOf(fieldOf(list))).toEqual(list);
    expect(columnOf({ name: "d", type: "NUMERIC", precision: "12", scale: "2", mode: "REQUIRED" })).toEqual({
      name: "d",
      type: { kind: "decimal", precision: 12, scale: 2 },
      nullable: false,
    });
  });

  it("accepts only lossless changes", () => {
    const numeric = { name: "n", type: "NUMERIC", precision: "12", scale: "2" };
    expect(fieldFits(numeric, { name: "n", type: "NUMERIC", precision: "10", scale: "2" })).toBe(true);
    expect(fieldFits(numeric, { name: "n", type: "NUMERIC", precision: "14", scale: "2" })).toBe(false);
    expect(fieldFits({ name: "x", type: "INTEGER" }, { name: "x", type: "INT64" })).toBe(true);
    expect(fieldFits({ name: "x", type: "INT64" }, { name: "x", type: "STRING" })).toBe(false);
  });

  it("writes exact NDJSON: integers and decimals as strings, NaN and infinities as BigQuery spells them", () => {
    const columns = [
      { name: "i", type: { kind: "int64" }, nullable: true },
      { name: "d", type: { kind: "decimal", precision: 40, scale: 2 }, nullable: true },
      { name: "f", type: { kind: "float64" }, nullable: true },
      { name: "b", type: { kind: "bytes" }, nullable: true },
      { name: "ts", type: { kind: "timestamptz" }, nullable: true },
      { name: "j", type: { kind: "json" }, nullable: true },
      { name: "n", type: { kind: "text" }, nullable: true },
    ] as const;
    const batch = batchFromRows(columns, [
      {
        i: 2n ** 63n - 1n,
        d: "12345678901234567890123456789012345678.25",
        f: Number.NaN,
        b: new Uint8Array([0, 255]),
        ts: "1969-12-31T23:59:59.999999Z",
        j: '{"a":1}',
        n: null,
      },
    ]);
    expect(ndjsonLine(batch, 0, "raw.t")).toBe(
      '{"i":"9223372036854775807","d":"12345678901234567890123456789012345678.25","f":"NaN","b":"AP8=","ts":"1969-12-31 23:59:59.999999+00:00","j":{"a":1}}',
    );
  });

  it("reads result cells exactly", () => {
    expect(decodeCell({ name: "i", type: "INT64" }, "9007199254740993")).toBe(9007199254740993n);
    expect(decodeCell({ name: "t", type: "TIMESTAMP" }, "-1")).toBe(-1n);
    expect(decodeCell({ name: "t", type: "DATETIME" }, "1970-01-01T00:00:00.000001")).toBe(1n);
    expect(decodeCell({ name: "n", type: "BIGNUMERIC" }, "1e+40")).toBe("1e+40");
    expect(decodeCell({ name: "f", type: "FLOAT64" }, "-Infinity")).toBe(Number.NEGATIVE_INFINITY);
    expect(decodeCell({ name: "l", type: "INT64", mode: "REPEATED" }, [{ v: "1" }, { v: "2" }])).toEqual([1n, 2n]);
  });
});
