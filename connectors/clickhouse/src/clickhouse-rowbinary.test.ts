import { withUtf8 } from "@sqlload/conformance";
import { batchFromRows, type Column, type CursorRange, integerCursor } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { spanMayOverlap } from "./clickhouse-range.js";
import { encodeRowBinary, scaledDecimal, wireStructure } from "./clickhouse-rowbinary.js";
import { coalesce, type StagedDelete } from "./clickhouse-stage.js";

describe("RowBinary", () => {
  it("encodes Nullable flags, little-endian integers and varint-prefixed strings", () => {
    const schema: Column[] = [
      { name: "i", type: { kind: "int32" }, nullable: true },
      { name: "s", type: { kind: "text" }, nullable: true },
    ];
    const data = encodeRowBinary(
      batchFromRows(schema, [
        { i: 258, s: "é" },
        { i: null, s: null },
      ]),
    );
    expect([...data]).toEqual([0, 2, 1, 0, 0, 0, 2, 0xc3, 0xa9, 1, 1]);
    expect(wireStructure(schema)).toBe("`i` Nullable(Int32), `s` Nullable(String)");
  });

  it("writes text given as UTF-8 bytes exactly as the same text given as strings", () => {
    const schema: Column[] = [
      { name: "i", type: { kind: "int32" }, nullable: true },
      { name: "s", type: { kind: "text" }, nullable: true },
      { name: "j", type: { kind: "json" }, nullable: true },
    ];
    const rows = [
      { i: 1, s: "é\u{1F600}", j: '{"a":1}' },
      { i: null, s: null, j: null },
      { i: 3, s: "x".repeat(300), j: "[]" },
      { i: 4, s: "", j: '"ü"' },
    ];
    const strings = batchFromRows(schema, rows);
    const bytes = withUtf8(strings);
    expect(bytes.columns[1]?.utf8).toBeDefined();
    expect(encodeRowBinary(bytes).equals(encodeRowBinary(strings))).toBe(true);
  });

  it("writes decimals given as scaled integers exactly as the same decimals given as strings, never asking for the strings", () => {
    const schema: Column[] = [
      { name: "d9", type: { kind: "decimal", precision: 9, scale: 2 }, nullable: true },
      { name: "d18", type: { kind: "decimal", precision: 18, scale: 4 }, nullable: true },
      { name: "d38", type: { kind: "decimal", precision: 38, scale: 10 }, nullable: true },
      { name: "d76", type: { kind: "decimal", precision: 76, scale: 0 }, nullable: true },
    ];
    const rows = [
      { d9: "9999999.99", d18: "-99999999999.9999", d38: "-99999.9999999999", d76: "-9007199254740991" },
      { d9: null, d18: null, d38: null, d76: null },
      { d9: "-0.01", d18: "1.5000", d38: "0.0000000001", d76: "9007199254740991" },
      { d9: "0", d18: "-0.0001", d38: "-1", d76: "0" },
    ];
    const strings = batchFromRows(schema, rows);
    const given = withUtf8(strings);
    const scaledOnly = {
      ...given,
      columns: given.columns.map((column, c) => {
        const type = schema[c]?.type;
        expect(type?.kind === "decimal" && column.scaled?.(type.scale)).toBeTruthy();
        return {
          get values(): never {
            throw new Error("a decimal's strings were asked for");
          },
          nulls: column.nulls,
          scaled: column.scaled,
        };
      }),
    };
    expect(encodeRowBinary(scaledOnly).equals(encodeRowBinary(strings))).toBe(true);
  });

  it("refuses a scaled decimal wider than its column, naming the value", () => {
    const schema: Column[] = [{ name: "d", type: { kind: "decimal", precision: 4, scale: 1 }, nullable: true }];
    const given = withUtf8(batchFromRows(schema, [{ d: "1000.0" }]));
    expect(() => encodeRowBinary(given)).toThrow(/column "d": value "1000\.0" does not fit \(more than 4 digits\)/);
  });

  it("writes lists as counted arrays, a NULL list as empty", () => {
    const schema: Column[] = [{ name: "l", type: { kind: "list", element: { kind: "int16" } }, nullable: true }];
    const data = encodeRowBinary(batchFromRows(schema, [{ l: [1, null] }, { l: null }]));
    expect([...data]).toEqual([2, 0, 1, 0, 1, 0]);
    expect(wireStructure(schema)).toBe("`l` Array(Nullable(Int16))");
  });

  it("scales decimals exactly and refuses lost digits", () => {
    expect(scaledDecimal("-12.3", 5, 2, "d")).toBe(-1230n);
    expect(scaledDecimal("12.300", 5, 2, "d")).toBe(1230n);
    expect(scaledDecimal(".5", 5, 2, "d")).toBe(50n);
    expect(() => scaledDecimal("1.234", 5, 2, "d")).toThrow(/after the point/);
    expect(() => scaledDecimal("1000", 5, 2, "d")).toThrow(/more than 5 digits/);
    expect(() => scaledDecimal("1e5", 5, 2, "d")).toThrow(/not a decimal/);
  });

  it("writes Decimal128 as a 16-byte two's complement", () => {
    const schema: Column[] = [{ name: "d", type: { kind: "decimal", precision: 30, scale: 0 }, nullable: false }];
    const data = encodeRowBinary(batchFromRows(schema, [{ d: "-1" }]));
    expect([...data]).toEqual([0, ...new Array(16).fill(0xff)]);
  });
});

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
