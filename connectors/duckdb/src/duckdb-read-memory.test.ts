import type { DuckDBType } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { BIGINT, DuckDBTypeId, LIST, VARCHAR } from "./duckdb-client.js";
import { RaisableLimit } from "./duckdb-memory-limit.js";
import { READ_BASE_BYTES } from "./duckdb-memory-settings.js";
import { memoryForRead, ReadMemory, readShape } from "./duckdb-read-memory.js";

const struct = (...entryTypes: DuckDBType[]) => ({ typeId: DuckDBTypeId.STRUCT, entryTypes }) as unknown as DuckDBType;
const text = (longest: number) => `[Min: a, Max: z, Has Unicode: false, Max String Length: ${longest}][Has Null: false]`;
const MB = 1024 * 1024;

describe("readShape", () => {
  it("counts leaf columns, their slots, and the longest text the statistics give", () => {
    expect(readShape([BIGINT, VARCHAR, VARCHAR], ["[Min: 1, Max: 9]", text(1056), text(10)])).toEqual({
      leaves: 3,
      slotBytes: 48,
      textBytes: 1066,
      long: false,
    });
  });

  it("takes a struct's fields as columns of their own", () => {
    const shape = readShape([struct(BIGINT, VARCHAR, BIGINT)], [`{a: [..], b: ${text(200)}}`]);
    expect(shape).toEqual({ leaves: 4, slotBytes: 48, textBytes: 200, long: false });
  });

  it("marks text of 4 KB or more long; does not know text without statistics, or lists", () => {
    expect(readShape([VARCHAR], [text(4096)])).toMatchObject({ textBytes: 4096, long: true });
    expect(readShape([BIGINT, struct(BIGINT, VARCHAR)], ["[Min: 1]", `{a: [..], b: ${text(9000)}}`]).long).toBe(true);
    expect(readShape([VARCHAR], [null]).textBytes).toBeUndefined();
    expect(readShape([VARCHAR], ["[Has Null: true]"]).textBytes).toBeUndefined();
    expect(readShape([BIGINT, LIST(BIGINT)], ["[Min: 1]", "[..]"]).textBytes).toBeUndefined();
    // Stored as strings the statistics do not measure, or not known here: not bounded.
    for (const typeId of [DuckDBTypeId.GEOMETRY, DuckDBTypeId.BIGNUM, DuckDBTypeId.VARIANT, 99]) {
      expect(readShape([{ typeId } as unknown as DuckDBType], ["[Has Null: false]"]).textBytes).toBeUndefined();
    }
  });

  it("without statistics, is the shape of a scan: the columns, no text", () => {
    expect(readShape([BIGINT, VARCHAR, struct(VARCHAR, VARCHAR)])).toEqual({
      leaves: 5,
      slotBytes: 64,
      textBytes: 0,
      long: false,
    });
  });
});

describe("memoryForRead", () => {
  it("grows with the columns, the threads and the rows' text", () => {
    const narrow = memoryForRead(readShape([BIGINT, VARCHAR], ["[Min: 1]", text(1056)]), 2) as number;
    // 2 threads × (2 columns × 512 KiB + 2 chunks of 2,048 rows of 1,088 bytes) + 16 chunks buffered.
    expect(narrow).toBe(2 * (2 * 0.5 * MB + 2 * 2048 * 1088) + 16 * 2048 * 1088);
    expect(narrow).toBeLessThan(50e6);
    const wider = memoryForRead(readShape([BIGINT, VARCHAR], ["[Min: 1]", text(1056)]), 8) as number;
    expect(wider).toBeGreaterThan(narrow);
    // 400 number columns: their blocks.
    expect(memoryForRead(readShape(Array(400).fill(BIGINT), Array(400).fill("[Min: 1]")), 2)).toBeGreaterThan(400 * MB);
  });

  it("covers what DuckDB needed to read 40 columns of 3,500 characters (between 384 and 512 MB, two threads)", () => {
    const shape = readShape([BIGINT, ...Array(40).fill(VARCHAR)], ["[Min: 1]", ...Array(40).fill(text(3500))]);
    expect(memoryForRead(shape, 2)).toBeGreaterThan(512e6);
  });

  it("leaves to DuckDB's own limit what a streamed read cannot bound (long text is read in pages instead)", () => {
    expect(memoryForRead(readShape([VARCHAR], [text(51_200)]), 2)).toBeUndefined();
  });
});

describe("ReadMemory", () => {
  it("raises the limit for the reads open together, never lowers it, and takes the ceiling for an unknown need", async () => {
    const set: number[] = [];
    const memory = new ReadMemory(new RaisableLimit(READ_BASE_BYTES, async (bytes) => void set.push(bytes), 2e9));
    const first = await memory.hold(10e6);
    const second = await memory.hold(20e6);
    expect(set).toEqual([READ_BASE_BYTES + 10e6, READ_BASE_BYTES + 30e6]);
    first();
    first();
    second();
    // Released, the need no longer counts: a later read of 25 MB fits under what was set.
    await memory.hold(25e6);
    expect(set).toHaveLength(2);
    await memory.hold(undefined);
    expect(set.at(-1)).toBe(2e9);
  });

  it("takes back a need whose raise failed", async () => {
    let fail = true;
    const limit = new RaisableLimit(
      READ_BASE_BYTES,
      async () => {
        if (fail) throw new Error("no");
      },
      2e9,
    );
    const memory = new ReadMemory(limit);
    await expect(memory.hold(100e6)).rejects.toThrow("no");
    fail = false;
    await memory.hold(1e6);
    // Had the failed 100 MB stayed held, this would have asked for 165 MB.
    expect(limit.bytes).toBe(READ_BASE_BYTES + 1e6);
  });
});
