import { describe, expect, it } from "vitest";
import type { Column } from "../connector/logical-types.js";
import { batchFromRows, batchToRows } from "../connector/record-batch.js";
import type { ReadRequest, SourceItem, SourceTableReader } from "../connector/source.js";
import { integerCursor } from "../cursor/cursor-value.js";
import { isSqlloadError } from "../errors/sqlload-error.js";
import { BatchFilter, ReadPosition, readItems } from "./read-items.js";

const columns: Column[] = [
  { name: "id", type: { kind: "int64" }, nullable: false },
  { name: "k", type: { kind: "int64" }, nullable: true },
  { name: "extra", type: { kind: "text" }, nullable: true },
];
const batch = (...ks: (number | null)[]) =>
  batchFromRows(
    columns,
    ks.map((k, i) => ({ id: BigInt(i), k: k === null ? null : BigInt(k), extra: "x" })),
  );
const names = { table: "raw.t", source: "app.t" };

function readerOf(items: () => AsyncGenerator<SourceItem>): SourceTableReader {
  return { read: () => items(), close: async () => {} };
}
const request = (signal: AbortSignal): ReadRequest => ({ range: {}, includeNulls: true, ordered: false, signal });

describe("readItems", () => {
  it("yields what the source yields", async () => {
    const reader = readerOf(async function* () {
      yield { kind: "batch", batch: batch(1) };
      yield { kind: "commit-point" };
    });
    const kinds: string[] = [];
    for await (const item of readItems(reader, request(new AbortController().signal), names)) kinds.push(item.kind);
    expect(kinds).toEqual(["batch", "commit-point"]);
  });

  it("stops with SL307 as soon as the run is interrupted, however slow the source", async () => {
    const controller = new AbortController();
    const reader = readerOf(async function* () {
      yield { kind: "batch", batch: batch(1) };
      await new Promise(() => {});
    });
    const items = readItems(reader, request(controller.signal), names);
    await items.next();
    setTimeout(() => controller.abort(), 5);
    await expect(items.next()).rejects.toMatchObject({ code: "SL307" });
  });

  it("turns a source's failure into SL304 naming what was read", async () => {
    const reader = readerOf(async function* () {
      yield* [];
      throw new Error("socket closed");
    });
    const error = await readItems(reader, request(new AbortController().signal), names)
      .next()
      .catch((e: unknown) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL304");
    expect((error as Error).message).toContain("reading app.t failed");
  });
});

describe("BatchFilter", () => {
  it("keeps the configured columns and the rows inside the range, counting the rest", () => {
    const filter = new BatchFilter("raw.t", ["id", "k"], "k", false);
    const kept = filter.keep(batch(1, 5, null, 9), {
      range: { from: integerCursor(2), to: integerCursor(9) },
      includeNulls: false,
    });
    expect(kept.batch.schema.map((c) => c.name)).toEqual(["id", "k"]);
    expect(batchToRows(kept.batch).map((r) => r.k)).toEqual([5n]);
    expect(kept.max).toEqual(integerCursor(5));
    expect(filter.dropped).toBe(3);
    expect(filter.columnsOf(columns)?.map((c) => c.name)).toEqual(["id", "k"]);
  });

  it("trusts a source that reads exact ranges, and keeps NULL cursors of a full read", () => {
    const filter = new BatchFilter("raw.t", undefined, "k", true);
    const kept = filter.keep(batch(1, null, 50), { range: { to: integerCursor(2) }, includeNulls: true });
    expect(kept.batch.length).toBe(3);
    expect(kept.max).toEqual(integerCursor(50));
    expect(filter.dropped).toBe(0);
  });

  it("refuses rows that lack the cursor column", () => {
    const filter = new BatchFilter("raw.t", ["id"], "k", false);
    expect(() => filter.keep(batch(1), { range: {}, includeNulls: true })).toThrow(/cursor column "k" is not in the rows read/);
  });
});

describe("ReadPosition", () => {
  it("moves to the largest cursor seen, and forgets a position a range delete covers", () => {
    const position = new ReadPosition(integerCursor(3));
    position.advance(integerCursor(2));
    expect(position.value).toEqual(integerCursor(3));
    position.advance(integerCursor(7));
    expect(position.value).toEqual(integerCursor(7));
    position.forgetIfIn({ from: integerCursor(8) });
    expect(position.value).toEqual(integerCursor(7));
    position.forgetIfIn({ from: integerCursor(7) });
    expect(position.value).toBeNull();
  });
});
