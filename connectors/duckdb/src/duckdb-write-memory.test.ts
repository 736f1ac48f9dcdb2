import type { RecordBatch } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { measureBatch, memoryForWrites, OVERFLOW_BYTES, WriteMemory } from "./duckdb-write-memory.js";

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

describe("memoryForWrites", () => {
  it("counts values DuckDB stores out of line four times over, 2,048 at a time", () => {
    expect(memoryForWrites([100_000, 50_000], 0)).toBe(4 * 2048 * 150_000);
  });

  it("counts shorter text twice over, 2,048 rows at a time, and every column", () => {
    expect(memoryForWrites([OVERFLOW_BYTES - 1, 100], 0)).toBe(2 * 2048 * (OVERFLOW_BYTES - 1 + 100));
    expect(memoryForWrites([100_000, 3_500], 3)).toBe(2048 * (4 * 100_000 + 2 * 3_500) + 3 * 640 * 1024);
  });

  it("needs more than 256 MB for the shapes that failed under it, and less for ordinary rows", () => {
    // 40 columns of 3,500 characters, and 1,000 columns of 10: both failed to commit under 256 MB.
    expect(memoryForWrites(Array(40).fill(3_500), 40)).toBeGreaterThan(298e6);
    expect(memoryForWrites(Array(1000).fill(10), 1000)).toBeGreaterThan(331e6);
    // Rows of 1 KB, and 121 bigint columns: they load under 256 MB.
    expect(memoryForWrites([1_000, 10, 12], 5)).toBeLessThan(16e6);
    expect(memoryForWrites([], 121)).toBeLessThan(256e6);
  });
});

/** A measure of no columns but its text ones, so that the needs below are the long values' alone. */
const longest = (entries: [string, number][]) => ({ columns: 0, longest: new Map(entries) });

describe("WriteMemory", () => {
  it("raises the limit only past what it is, never lowers it, and stops at its ceiling", async () => {
    const set: number[] = [];
    const memory = new WriteMemory(256e6, async (bytes) => void set.push(bytes), 2e9);
    await memory.fit("t", longest([["doc", 20_000]])); // 164 MB: under the limit
    await memory.fit("t", longest([["doc", 100_000]]));
    await memory.fit("u", longest([["a", 50_000]])); // another table needing less
    await memory.fit("t", longest([["other", 200_000]])); // two long columns: 300 KB a row
    await memory.fit("t", longest([["doc", 90_000]]));
    expect(set).toEqual([4 * 2048 * 100_000, 2e9]);
    expect(memory.bytes).toBe(2e9);
  });

  it("sets the limit as it stands when each SET runs, so a lower one never lands after a higher one", async () => {
    let current = 0;
    const memory = new WriteMemory(0, async (bytes) => {
      await new Promise((resolve) => setTimeout(resolve, bytes === 4 * 2048 * 10_000 ? 20 : 0));
      current = bytes;
    });
    await Promise.all([memory.fit("a", longest([["x", 10_000]])), memory.fit("b", longest([["y", 20_000]]))]);
    expect(current).toBe(4 * 2048 * 20_000);
  });

  it("raises the limit for a table of many columns, counted by the most a batch had", async () => {
    const set: number[] = [];
    const memory = new WriteMemory(256e6, async (bytes) => void set.push(bytes), 2e9);
    await memory.fit("wide", { columns: 300, longest: new Map() });
    expect(set).toEqual([]);
    await memory.fit("wide", { columns: 1000, longest: new Map([["c1", 10]]) });
    await memory.fit("wide", { columns: 10, longest: new Map() });
    expect(set).toEqual([1000 * 640 * 1024 + 2 * 2048 * 10]);
  });
});
