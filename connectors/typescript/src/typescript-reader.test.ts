import { BATCH_BYTES, type Column, type RecordBatch, type SourceItem } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { source, type TableDefinition } from "./api.js";
import { TypeScriptReader } from "./typescript-reader.js";

const WIDE = 100_000;

/** A table function yielding `rows` rows whose `body` is `width` characters. */
function pages(rows: number, width: number): TableDefinition<unknown> {
  return source("shop").table({ name: "pages" }, function* () {
    for (let id = 1; id <= rows; id++) yield { id, body: String(id).padEnd(width, "x") };
  }) as TableDefinition<unknown>;
}

/** What a full read of the table yields, item by item. */
function readAll(reader: TypeScriptReader): AsyncIterable<SourceItem> {
  return reader.read({
    range: {},
    includeNulls: true,
    ordered: false,
    signal: new AbortController().signal,
  }) as AsyncIterable<SourceItem>;
}

async function batches(reader: TypeScriptReader): Promise<RecordBatch[]> {
  const out: RecordBatch[] = [];
  for await (const item of readAll(reader)) if (item.kind === "batch") out.push(item.batch);
  return out;
}

const textBytes = (batch: RecordBatch) => (batch.columns[1]!.values as string[]).reduce((n, s) => n + s.length, 0);

describe("TypeScriptReader batches", () => {
  const declared: Column[] = [
    { name: "id", type: { kind: "int64" }, nullable: false },
    { name: "body", type: { kind: "text" }, nullable: true },
  ];

  for (const [label, columns] of [
    ["declared columns", declared],
    ["inferred columns", undefined],
  ] as const) {
    it(`cuts wide rows at BATCH_BYTES, not at its row count (${label})`, async () => {
      const rows = 300; // 30 MB of text: one batch of 300 rows without the byte bound
      const got = await batches(new TypeScriptReader(pages(rows, WIDE), columns, "shop__pages"));
      expect(got.reduce((n, b) => n + b.length, 0)).toBe(rows);
      expect(got.length).toBeGreaterThanOrEqual(Math.floor((rows * WIDE) / (BATCH_BYTES + WIDE)));
      // Cut after the row that reaches the bound: at most one row past it.
      for (const batch of got) expect(textBytes(batch)).toBeLessThan(BATCH_BYTES + WIDE);
      // The rows arrive whole and in order.
      expect(got.flatMap((b) => [...(b.columns[0]!.values as BigInt64Array)].map(Number))).toEqual(
        Array.from({ length: rows }, (_, i) => i + 1),
      );
    });
  }

  it("keeps narrow rows in batches of its row count", async () => {
    const got = await batches(new TypeScriptReader(pages(25_000, 10), declared, "shop__pages"));
    expect(got.map((b) => b.length)).toEqual([10_000, 10_000, 5_000]);
  });

  it("never records a position past rows not yet in a batch, when the sample is cut into batches", async () => {
    // A logged table that declares no columns: its first 100 rows are held back to infer them, and
    // `ctx.state` moves on meanwhile. Pages of 10 rows of 256 KB; state p means pages before p are done.
    const pages = 15;
    const table = source("shop").table({ name: "feed", state: "logged" }, function* (ctx) {
      for (let p = 0; p < pages; p++) {
        for (let i = 0; i < 10; i++) yield { id: p * 10 + i, body: String(p).padEnd(256 * 1024, "x") };
        ctx.state = p + 1;
      }
    });
    const reader = new TypeScriptReader(table as TableDefinition<unknown>, undefined, "shop__feed");
    let rows = 0;
    const positions: [number, number][] = [];
    for await (const item of readAll(reader)) {
      if (item.kind === "batch") rows += item.batch.length;
      if (item.kind === "checkpoint" && typeof item.state === "number") positions.push([item.state, rows]);
    }
    expect(rows).toBe(pages * 10);
    expect(positions.length).toBeGreaterThan(0);
    // A commit at a checkpoint holds the rows before it: every page the position says is done.
    for (const [state, before] of positions) expect([state, before]).toEqual([state, Math.max(before, state * 10)]);
  });

  it("infers the columns from fewer rows than its sample once they hold BATCH_BYTES", async () => {
    // 100 rows of 1 MB would be 100 MB held before the first batch.
    let yielded = 0;
    const table = source("shop").table({ name: "big" }, function* () {
      for (let id = 1; id <= 40; id++) {
        yielded++;
        yield { id, body: String(id).padEnd(1024 * 1024, "x") };
      }
    });
    let atFirstBatch = 0;
    let rows = 0;
    const reader = new TypeScriptReader(table as TableDefinition<unknown>, undefined, "shop__big");
    for await (const item of readAll(reader)) {
      if (item.kind !== "batch") continue;
      atFirstBatch ||= yielded;
      rows += item.batch.length;
    }
    expect(rows).toBe(40);
    expect(atFirstBatch).toBe(BATCH_BYTES / (1024 * 1024));
  });
});

describe("TypeScriptReader inferred types", () => {
  it("takes a column whose first value is a bigint as int64, and keeps every digit", async () => {
    const table = source("shop").table({ name: "ids" }, function* () {
      yield { id: 2n ** 62n + 1n };
      yield { id: 1 };
      yield { id: null };
    });
    const got = await batches(new TypeScriptReader(table as TableDefinition<unknown>, undefined, "shop__ids"));
    expect(got[0]?.schema.map((c) => c.type.kind)).toEqual(["int64"]);
    expect([...(got[0]!.columns[0]!.values as BigInt64Array)].slice(0, 2)).toEqual([2n ** 62n + 1n, 1n]);
  });

  it("keeps a column of whole numbers and then a bigint a double, as tables made before have it", async () => {
    const table = source("shop").table({ name: "amounts" }, function* () {
      yield { amount: 1 };
      yield { amount: 2n };
    });
    const got = await batches(new TypeScriptReader(table as TableDefinition<unknown>, undefined, "shop__amounts"));
    // An int64 would be a type change (SL302) for the double column earlier runs made.
    expect(got[0]?.schema[0]?.type).toEqual({ kind: "float64" });
    expect([...(got[0]!.columns[0]!.values as Float64Array)]).toEqual([1, 2]);
  });

  it("refuses a bigint a double column would round (SL300), and takes one it holds exactly", async () => {
    const table = source("shop").table({ name: "amounts" }, function* () {
      yield { amount: 1.5 };
      yield { amount: 2n ** 60n };
      yield { amount: 2n ** 60n + 1n };
    });
    const reader = new TypeScriptReader(table as TableDefinition<unknown>, undefined, "shop__amounts");
    await expect(batches(reader)).rejects.toMatchObject({ code: "SL300", message: expect.stringContaining("row 3") });
  });
});

describe("TypeScriptReader errors", () => {
  it("names the table of a row that does not fit, also when it is found in the last, sampled rows", async () => {
    // No declared columns and fewer rows than the sample: the rows are only put in a batch at the end.
    const table = source("shop").table({ name: "events" }, function* () {
      yield { id: 1, at: new Date(0) };
      yield { id: 2, at: new Date(Number.NaN) };
    });
    const reader = new TypeScriptReader(table as TableDefinition<unknown>, undefined, "shop__events");
    await expect(batches(reader)).rejects.toMatchObject({
      code: "SL300",
      message: expect.stringMatching(/^table shop__events: row 2, column "at": value Invalid Date does not fit/),
    });
  });
});
