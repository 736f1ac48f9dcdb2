import { BATCH_BYTES, type Column, type RecordBatch, type SourceItem } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { source } from "./api.js";
import { TypeScriptReader } from "./typescript-reader.js";

const WIDE = 100_000;

/** A table function yielding `rows` rows whose `body` is `width` characters. */
function pages(rows: number, width: number) {
  return source("shop").table({ name: "pages" }, function* () {
    for (let id = 1; id <= rows; id++) yield { id, body: String(id).padEnd(width, "x") };
  });
}

async function batches(reader: TypeScriptReader): Promise<RecordBatch[]> {
  const out: RecordBatch[] = [];
  const items = reader.read({
    range: {},
    includeNulls: true,
    ordered: false,
    signal: new AbortController().signal,
  }) as AsyncIterable<SourceItem>;
  for await (const item of items) if (item.kind === "batch") out.push(item.batch);
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
});
