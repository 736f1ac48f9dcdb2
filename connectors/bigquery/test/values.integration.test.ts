import { batchFromRows, type Column } from "@sqlload/core";
import { BigQueryEmulator } from "@sqlload/testing/emulator/bigquery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTarget, readerFor, readTable } from "./harness.js";

// The conformance suite skips every list case (a BigQuery ARRAY holds no NULL element and reads
// a NULL array as empty): what BigQuery can keep of lists, with the other values that must stay exact.
describe("BigQuery ARRAY, JSON and exact values (emulator)", () => {
  let emulator: BigQueryEmulator;
  let n = 0;
  const options = () => ({ project: "p", api_endpoint: emulator.endpoint, access_token: "t" });
  const columns: Column[] = [
    { name: "id", type: { kind: "int64" }, nullable: false },
    { name: "ints", type: { kind: "list", element: { kind: "int64" } }, nullable: true },
    { name: "texts", type: { kind: "list", element: { kind: "text" } }, nullable: true },
    { name: "amounts", type: { kind: "list", element: { kind: "decimal", precision: 10, scale: 2 } }, nullable: true },
    { name: "doc", type: { kind: "json" }, nullable: true },
    { name: "f", type: { kind: "float64" }, nullable: true },
    { name: "big", type: { kind: "decimal", precision: 38, scale: 10 }, nullable: true },
  ];
  const load = async (rows: Record<string, unknown>[]) => {
    const schema = `values_${++n}`;
    const target = await openTarget(options(), schema);
    const ref = { schema, name: "t" };
    const ensured = await target.ensureTable(ref, columns, {});
    const unit = await target.begin(ref, { strategy: "append", columns: ensured });
    try {
      await unit.write(batchFromRows(columns, rows));
      await unit.commit();
    } catch (error) {
      await unit.abort().catch(() => undefined);
      throw error;
    }
    return (await readTable(readerFor(options()), schema, "t"))?.sort((a, b) => Number((a.id as bigint) - (b.id as bigint)));
  };
  beforeAll(async () => {
    emulator = await BigQueryEmulator.start();
  });
  afterAll(() => emulator.stop());

  it("keeps arrays element by element, JSON documents, NaN and ±Infinity, and 38-digit BIGNUMERIC exactly", async () => {
    const rows = await load([
      {
        id: 1n,
        ints: [2n ** 53n + 1n, -(2n ** 63n), 0n],
        texts: ["a", "é😀", ""],
        amounts: ["12345678.91", "-0.01"],
        doc: '{"a":[1,2],"b":{"c":"d"}}',
        f: Number.NaN,
        big: "1234567890123456789012345678.0123456789",
      },
      { id: 2n, ints: [], texts: [], amounts: [], doc: "null", f: Number.POSITIVE_INFINITY, big: "-0.0000000001" },
      { id: 3n, ints: null, texts: null, amounts: null, doc: null, f: Number.NEGATIVE_INFINITY, big: null },
    ]);
    expect(rows).toEqual([
      {
        id: 1n,
        ints: [9007199254740993n, -9223372036854775808n, 0n],
        texts: ["a", "é😀", ""],
        amounts: ["12345678.91", "-0.01"],
        doc: '{"a":[1,2],"b":{"c":"d"}}',
        f: Number.NaN,
        big: "1234567890123456789012345678.0123456789",
      },
      // A load job reads a top-level JSON `null` as a missing value: the document `null` lands as SQL NULL.
      { id: 2n, ints: [], texts: [], amounts: [], doc: null, f: Number.POSITIVE_INFINITY, big: "-0.0000000001" },
      // A NULL array reads back as an empty one, as BigQuery returns it.
      { id: 3n, ints: [], texts: [], amounts: [], doc: null, f: Number.NEGATIVE_INFINITY, big: null },
    ]);
  });

  it("refuses a NULL inside a list (SL300), naming row and column, and lands nothing", async () => {
    await expect(load([{ id: 1n, ints: [1n, null], texts: [], amounts: [] }])).rejects.toMatchObject({
      code: "SL300",
      message: expect.stringContaining("row 1 of values_"),
    });
    await expect(load([{ id: 1n, ints: [1n, null], texts: [], amounts: [] }])).rejects.toThrow(
      /column "ints" holds a NULL inside a list/,
    );
  });
});
