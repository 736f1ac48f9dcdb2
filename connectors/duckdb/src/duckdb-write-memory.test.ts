import { batchFromRows, type RecordBatch } from "@sqlload/core";
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
    // Values under 4 KB: "short" and the 4,000 bytes of é.
    expect(measure.short).toBe(5 + 4000);
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
    expect(measure.short).toBe(1 + 2);
  });

  it("measures a column by its UTF-8 bytes without asking for its values", () => {
    // A Postgres batch decodes a column's strings when its values are first asked for; the write
    // copies the UTF-8 bytes, so decoding them to measure was a fifth of a load's time.
    const column = {
      get values(): never {
        throw new Error("values decoded");
      },
      utf8: () => ({
        buffers: [new Uint8Array(8)],
        buffer: Int32Array.of(0, 0),
        offset: Int32Array.of(0, 3),
        length: Int32Array.of(3, 5),
      }),
    };
    const batch: RecordBatch = { schema: [{ name: "status", type: text, nullable: true }], length: 2, columns: [column] };
    const measure = measureBatch(batch);
    expect(measure.short).toBe(8);
    expect([...measure.longest]).toEqual([["status", 5]]);
  });

  it("counts decimals and uuids, which DuckDB stores in fixed slots, by their slots alone, never asking for their strings", () => {
    const batch: RecordBatch = {
      schema: [
        { name: "amount", type: { kind: "decimal", precision: 38, scale: 2 }, nullable: true },
        { name: "id", type: { kind: "uuid" }, nullable: true },
      ],
      length: 2,
      columns: [
        {
          get values(): never {
            throw new Error("a decimal's strings were asked for");
          },
        },
        { values: ["0b5e2a9c-5d1e-4c2b-9f3a-1a2b3c4d5e6f", null] },
      ],
    };
    const measure = measureBatch(batch);
    expect(measure.bytes).toBe(2 * 2 * 16);
    expect(measure.short).toBe(0);
  });

  it("counts the digits of a decimal wider than DuckDB's 38, which it stores as VARCHAR", () => {
    const digits = "7".repeat(1000);
    const batch = batchFromRows(
      [{ name: "d", type: { kind: "decimal", precision: 1000, scale: 0 }, nullable: true }],
      [{ d: digits }],
    );
    const measure = measureBatch(batch);
    expect(measure.short).toBe(1000);
    expect(measure.bytes).toBe(16 + 1000);
  });

  it("counts text beyond ASCII in UTF-8 bytes, short values too", () => {
    const batch: RecordBatch = {
      schema: [{ name: "t", type: text, nullable: true }],
      length: 2,
      columns: [{ values: ["漢".repeat(1297), "ab"] }],
    };
    expect(measureBatch(batch).short).toBe(3 * 1297 + 2);
  });
});

describe("memoryForWrites", () => {
  const MB = 1e6;
  it("counts values DuckDB stores out of line four times over, 2,048 at a time", () => {
    expect(memoryForWrites({ longest: [100_000, 50_000, OVERFLOW_BYTES - 1], shortVector: 0, columns: 0 })).toBe(
      4 * 2048 * 150_000,
    );
  });

  it("counts a vector of shorter text twice over, and 1.25 MiB a column", () => {
    expect(memoryForWrites({ longest: [100_000, 3_500], shortVector: 2048 * 3_500, columns: 3 })).toBe(
      2048 * (4 * 100_000 + 2 * 3_500) + 3 * 1.25 * 1024 * 1024,
    );
  });

  it("needs more than DuckDB did for the shapes that failed under 256 MB, and less than 256 MB for ordinary rows", () => {
    // 40 columns of 3,500 characters needed 298 MB; 1,000 columns appended to a table with rows 1,054 MB.
    expect(memoryForWrites({ longest: [], shortVector: 2048 * 40 * 3_500, columns: 40 })).toBeGreaterThan(298 * MB);
    expect(memoryForWrites({ longest: [], shortVector: 2048 * 1000 * 10, columns: 1000 })).toBeGreaterThan(1054 * MB);
    // Rows of 1 KB, and 121 bigint columns: they load under 256 MB.
    expect(memoryForWrites({ longest: [1_000], shortVector: 2048 * 1_030, columns: 5 })).toBeLessThan(16 * MB);
    expect(memoryForWrites({ longest: [], shortVector: 0, columns: 121 })).toBeLessThan(256 * MB);
  });
});

/** A measure of no columns and no short text, so that the needs below are the long values' alone. */
const longest = (entries: [string, number][]) => ({ rows: 100, columns: 0, short: 0, longest: new Map(entries) });

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
    await memory.fit("wide", { rows: 100, columns: 150, short: 0, longest: new Map() });
    expect(set).toEqual([]);
    await memory.fit("wide", { rows: 100, columns: 1000, short: 100 * 10, longest: new Map([["c1", 10]]) });
    await memory.fit("wide", { rows: 100, columns: 10, short: 0, longest: new Map() });
    expect(set).toEqual([1000 * 1.25 * 1024 * 1024 + 2 * 2048 * 10]);
  });

  it("counts shorter text by what rows hold on average in a batch, not by a column's longest value", async () => {
    const set: number[] = [];
    const memory = new WriteMemory(256e6, async (bytes) => void set.push(bytes), 2e9);
    // 40 columns; one row in a batch of 1,000 holds 3,500 bytes in each, the others 10.
    await memory.fit("t", { rows: 1000, columns: 40, short: 40 * (3_500 + 999 * 10), longest: new Map([["c0", 3_500]]) });
    expect(set).toEqual([]);
    // Then a batch whose 60 rows all hold 40 values of 3,500 bytes.
    await memory.fit("t", { rows: 60, columns: 40, short: 60 * 40 * 3_500, longest: new Map([["c0", 3_500]]) });
    expect(set).toEqual([2 * 2048 * 40 * 3_500 + 40 * 1.25 * 1024 * 1024]);
  });
});
