import { batchFromRows, type Utf8Fields } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { expiringBatch } from "./expiring-batch.js";
import { col } from "./suite-kit.js";
import { withUtf8 } from "./utf8-batch.js";

const decoder = new TextDecoder("utf-8", { fatal: true });
const columns = [col("id", "int32"), col("v", "text")];

function textOf(fields: Utf8Fields | undefined, row: number) {
  if (!fields || fields.length[row] === -1) return null;
  const bytes = fields.buffers[fields.buffer[row] as number] as Uint8Array;
  const from = fields.offset[row] as number;
  return decoder.decode(bytes.subarray(from, from + (fields.length[row] as number)));
}

describe("withUtf8", () => {
  it("gives each text value's bytes, NULLs as -1, across both buffers, a value of megabytes too", () => {
    const big = "é😀x".repeat(400_000);
    const rows = [
      { id: 1, v: "a" },
      { id: 2, v: null },
      { id: 3, v: big },
      { id: 4, v: "" },
    ];
    const fields = withUtf8(batchFromRows(columns, rows)).columns[1]?.utf8?.();
    expect(rows.map((_, r) => textOf(fields, r))).toEqual(["a", null, big, ""]);
    expect(new Set(fields?.buffer)).toEqual(new Set([0, 1]));
    expect(withUtf8(batchFromRows(columns, rows)).columns[0]?.utf8).toBeUndefined();
  });
});

describe("withUtf8 on decimals", () => {
  const decimals = [col("id", "int32"), col("d", { kind: "decimal", precision: 18, scale: 3 })];
  const scaled = (values: (string | null)[], scale: number) =>
    withUtf8(
      batchFromRows(
        decimals,
        values.map((d, id) => ({ id, d })),
      ),
    ).columns[1]?.scaled?.(scale);

  it("gives each value times 10^scale, NULLs as NaN", () => {
    expect([...(scaled(["1.500", null, "-0.001", "12.000"], 3) ?? [])]).toEqual([1500, Number.NaN, -1, 12000]);
    expect([...(scaled(["1.500", "12.000"], 1) ?? [])]).toEqual([15, 120]);
  });

  it("gives none when a value would be rounded at that scale or passes 2^53", () => {
    expect(scaled(["1.500", "-0.001"], 2)).toBeUndefined();
    expect(scaled(["9007199254740.992"], 3)).toBeUndefined();
    expect(scaled(["9007199254740.991"], 3)).toEqual(Float64Array.of(2 ** 53 - 1));
  });
});

describe("expiringBatch with utf8", () => {
  it("overwrites the bytes on expiry, so a view kept past the write reads garbage", () => {
    const { batch, expire } = expiringBatch(columns, [{ id: 1, v: "kept past its write, out of line" }], { utf8: true });
    const fields = batch.columns[1]?.utf8?.();
    expect(textOf(fields, 0)).toBe("kept past its write, out of line");
    expire();
    expect(() => batch.columns[1]?.utf8?.()).toThrow(/after the unit's write\(\) of it settled/);
    expect(() => textOf(fields, 0)).toThrow(TypeError);
  });

  it("fills kept scaled decimals with NaN on expiry, so a target that read them late stores NULLs", () => {
    const decimals = [col("id", "int32"), col("d", { kind: "decimal", precision: 12, scale: 2 })];
    const { batch, expire } = expiringBatch(decimals, [{ id: 1, d: "12.50" }], { utf8: true });
    const scaled = batch.columns[1]?.scaled?.(2);
    expect([...(scaled ?? [])]).toEqual([1250]);
    expire();
    expect(() => batch.columns[1]?.scaled?.(2)).toThrow(/after the unit's write\(\) of it settled/);
    expect([...(scaled ?? [])]).toEqual([Number.NaN]);
  });
});
