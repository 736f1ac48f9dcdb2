import type { Column, RecordBatch } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { hasOverflowText, OVERFLOW_TEXT_BYTES } from "./duckdb-overflow-text.js";

const text = (name: string, kind: "text" | "json" | "bytes" | "int64" = "text"): Column => ({
  name,
  type: { kind },
  nullable: true,
});

function one(column: Column, values: unknown[]): RecordBatch {
  return { schema: [column], length: values.length, columns: [{ values }] };
}

describe("hasOverflowText", () => {
  it("finds a text, json or bytes value of 4 KB or more, by its UTF-8 bytes", () => {
    const under = "x".repeat(OVERFLOW_TEXT_BYTES - 1);
    expect(hasOverflowText(one(text("s"), [null, under, "short"]))).toBe(false);
    expect(hasOverflowText(one(text("s"), [null, `${under}x`]))).toBe(true);
    expect(hasOverflowText(one(text("j", "json"), [`"${under}"`]))).toBe(true);
    // 1,366 characters of three UTF-8 bytes each are 4,098 bytes; 1,365 are 4,095.
    expect(hasOverflowText(one(text("s"), ["€".repeat(1366)]))).toBe(true);
    expect(hasOverflowText(one(text("s"), ["€".repeat(1365)]))).toBe(false);
    expect(hasOverflowText(one(text("b", "bytes"), [new Uint8Array(OVERFLOW_TEXT_BYTES)]))).toBe(true);
    expect(hasOverflowText(one(text("b", "bytes"), [new Uint8Array(OVERFLOW_TEXT_BYTES - 1)]))).toBe(false);
    expect(hasOverflowText(one(text("n", "int64"), [BigInt64Array.of(1n)]))).toBe(false);
  });

  it("reads the lengths of a column given as UTF-8 bytes, never its values", () => {
    const values = new Proxy([], {
      get: () => {
        throw new Error("values read");
      },
    }) as unknown as unknown[];
    const fields = (lengths: number[]) => () => ({
      buffers: [new Uint8Array(8)],
      buffer: new Int32Array(lengths.length),
      offset: new Int32Array(lengths.length),
      length: Int32Array.from(lengths),
    });
    const batch = (lengths: number[]): RecordBatch => ({
      schema: [text("s")],
      length: lengths.length,
      columns: [{ values, utf8: fields(lengths) }],
    });
    expect(hasOverflowText(batch([-1, 12, OVERFLOW_TEXT_BYTES - 1]))).toBe(false);
    expect(hasOverflowText(batch([-1, OVERFLOW_TEXT_BYTES]))).toBe(true);
  });
});
