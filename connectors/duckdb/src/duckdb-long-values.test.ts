import type { RecordBatch } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { LongValueMemory, measureBatch, memoryForLongValues, OVERFLOW_BYTES } from "./duckdb-long-values.js";

const text = { kind: "text" } as const;

describe("measureBatch", () => {
  it("gives each column's longest value in UTF-8 bytes, from strings, blobs and UTF-8 fields", () => {
    const batch: RecordBatch = {
      schema: [
        { name: "ID", type: { kind: "int64" }, nullable: true },
        { name: "doc", type: text, nullable: true },
        { name: "b", type: { kind: "bytes" }, nullable: true },
        { name: "u", type: text, nullable: true },
      ],
      length: 2,
      columns: [
        { values: BigInt64Array.of(1n, 2n) },
        // 2,000 units of é are 4,000 bytes: counted as bytes, not units.
        { values: ["short", "é".repeat(2000)] },
        { values: [new Uint8Array(9000), null] },
        {
          values: ["x", null],
          utf8: () => ({
            buffers: [new Uint8Array(1)],
            buffer: Int32Array.of(0, 0),
            offset: Int32Array.of(0, 0),
            length: Int32Array.of(70_000, -1),
          }),
        },
      ],
    };
    const measure = measureBatch(batch);
    expect([...measure.longest]).toEqual([
      ["doc", 4000],
      ["b", 9000],
      ["u", 70_000],
    ]);
    expect(measure.bytes).toBe(16 + 3 * 32 + 5 + 4000 + 9000 + 70_000);
  });

  it("measures a list by its elements, nested ones too", () => {
    const batch: RecordBatch = {
      schema: [{ name: "tags", type: { kind: "list", element: text }, nullable: true }],
      length: 3,
      columns: [{ values: [["a", "x".repeat(100_000)], null, [["bb"], [new Uint8Array(5000)]]] }],
    };
    const measure = measureBatch(batch);
    expect([...measure.longest]).toEqual([["tags", 100_000]]);
    expect(measure.bytes).toBe(48 + 1 + 100_000 + 2 + 5000);
  });
});

describe("memoryForLongValues", () => {
  it("counts only values DuckDB stores out of line, 2,048 at a time, four times over", () => {
    expect(memoryForLongValues([OVERFLOW_BYTES - 1, 100])).toBe(0);
    expect(memoryForLongValues([100_000, 50_000, 10])).toBe(4 * 2048 * 150_000);
  });
});

describe("LongValueMemory", () => {
  it("raises the limit only past what it is, never lowers it, and stops at its ceiling", async () => {
    const set: number[] = [];
    const memory = new LongValueMemory(256e6, async (bytes) => void set.push(bytes), 2e9);
    await memory.fit("t", new Map([["doc", 20_000]])); // 164 MB: under the limit
    await memory.fit("t", new Map([["doc", 100_000]]));
    await memory.fit("u", new Map([["a", 50_000]])); // another table needing less
    await memory.fit("t", new Map([["other", 200_000]])); // two long columns: 300 KB a row
    await memory.fit("t", new Map([["doc", 90_000]]));
    expect(set).toEqual([4 * 2048 * 100_000, 2e9]);
    expect(memory.bytes).toBe(2e9);
  });

  it("sets the limit as it stands when each SET runs, so a lower one never lands after a higher one", async () => {
    let current = 0;
    const memory = new LongValueMemory(0, async (bytes) => {
      await new Promise((resolve) => setTimeout(resolve, bytes === 4 * 2048 * 10_000 ? 20 : 0));
      current = bytes;
    });
    await Promise.all([memory.fit("a", new Map([["x", 10_000]])), memory.fit("b", new Map([["y", 20_000]]))]);
    expect(current).toBe(4 * 2048 * 20_000);
  });
});
