import { batchFromRows, batchToRows, type Column, type LogicalType, type RecordBatch } from "@sqlload/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { col, openSource, openTarget, t, tempProject } from "./harness.js";

let project: ReturnType<typeof tempProject>;
beforeAll(() => {
  project = tempProject();
});
afterAll(() => project?.cleanup());

const dec = (precision: number, scale: number): LogicalType => ({ kind: "decimal", precision, scale });
const list = (element: LogicalType): LogicalType => ({ kind: "list", element });

const columns: Column[] = [
  col("b", t("boolean")),
  col("i16", t("int16")),
  col("i32", t("int32")),
  col("i64", t("int64")),
  col("f32", t("float32")),
  col("f64", t("float64")),
  col("d38", dec(38, 10)),
  col("d5", dec(5, 2)),
  col("d0", dec(18, 0)),
  col("dwide", dec(50, 5)),
  col("txt", t("text")),
  col("by", t("bytes")),
  col("u", t("uuid")),
  col("j", t("json")),
  col("dt", t("date")),
  col("tm", t("time")),
  col("ts", t("timestamp")),
  col("tz", t("timestamptz")),
  col("l64", list(t("int64"))),
  col("ltxt", list(t("text"))),
  col("ldec", list(dec(10, 2))),
  col("ltz", list(t("timestamptz"))),
  col("lbool", list(t("boolean"))),
  col("lld", list(list(t("date")))),
];

const rows: Record<string, unknown>[] = [
  {
    b: true,
    i16: -32768,
    i32: -2147483648,
    i64: 2n ** 63n - 1n,
    f32: 1.5,
    f64: 0.1,
    d38: "1234567890123456789012345678.1234567890",
    d5: "999.99",
    d0: "-999999999999999999",
    dwide: "123456789012345678901234567890123456789012345.12345",
    txt: "héllo wörld",
    by: new Uint8Array([0, 255, 1, 0]),
    u: "123e4567-e89b-12d3-a456-426614174000",
    j: '{"a":[1,2,{"b":null}],"ü":"😀"}',
    dt: "1900-02-28",
    tm: "23:59:59.999999",
    ts: "2026-10-12T16:00:00.123456Z",
    tz: "2026-10-12T16:00:00.654321+02:00",
    l64: [1n, null, 2n ** 60n + 1n],
    ltxt: ["a", null, "😀", ""],
    ldec: ["1.25", null, "-0.01"],
    ltz: ["1969-12-31T23:59:59.999999Z"],
    lbool: [true, false, null],
    lld: [["2024-02-29"], [], null],
  },
  {
    b: false,
    i16: 32767,
    i32: 2147483647,
    i64: -(2n ** 63n),
    f32: -0.25,
    f64: Number.NaN,
    d38: "-0.0000000001",
    d5: "-1.50",
    d0: "0",
    dwide: "-0.00001",
    txt: "\u{1F600}\u{10FFFF}\uFFFD\uE000 tab\tnewline\n'quote\"",
    by: new Uint8Array([]),
    u: "ffffffff-ffff-ffff-ffff-ffffffffffff",
    j: "[]",
    dt: "9999-12-31",
    tm: "00:00:00",
    ts: "1900-01-01T00:00:00.000001Z",
    tz: "1970-01-01T00:00:00Z",
    l64: [],
    ltxt: [],
    ldec: [],
    ltz: [],
    lbool: [],
    lld: [],
  },
  {
    b: true,
    i16: 0,
    i32: 0,
    i64: 2n ** 53n + 1n,
    f32: 3.4028234663852886e38,
    f64: Number.POSITIVE_INFINITY,
    d38: "0.0000000000",
    d5: "0.00",
    d0: "1",
    dwide: "0.00000",
    txt: "",
    by: new Uint8Array([7]),
    u: "00000000-0000-0000-0000-000000000000",
    j: "null",
    dt: "1970-01-01",
    tm: "12:34:56.000001",
    ts: "1970-01-01T00:00:00Z",
    tz: "2262-04-11T23:47:16.854775Z",
    l64: [-(2n ** 63n)],
    ltxt: ["x"],
    ldec: ["99999999.99"],
    ltz: [null],
    lbool: [false],
    lld: [[null]],
  },
  Object.fromEntries(columns.map((c) => [c.name, null])),
];

/** Writes through the target, reads back through the source (the same file), compares. */
async function roundTrip(written: RecordBatch, name: string): Promise<RecordBatch[]> {
  const target = await openTarget(project.dir);
  const ref = { schema: "raw", name };
  const ensured = await target.ensureTable(ref, written.schema, {});
  const unit = await target.begin(ref, { strategy: "append", columns: ensured });
  await unit.write(written);
  await unit.commit();
  const source = await openSource(project.dir);
  const request = { table: { schema: "raw", name, key: `raw.${name}` }, options: {} };
  const reader = await source.openTable(request, await source.describeTable(request));
  const batches: RecordBatch[] = [];
  for await (const item of reader.read({ range: {}, includeNulls: true, ordered: false, signal: new AbortController().signal })) {
    if (item.kind === "batch") batches.push(item.batch);
  }
  await reader.close();
  await source.close();
  await target.close();
  return batches;
}

it("round-trips every logical type, NULLs and extreme values exactly", async () => {
  const written = batchFromRows(columns, rows);
  const [back, ...more] = await roundTrip(written, "all_types");
  expect(more).toEqual([]);
  // A decimal wider than DuckDB's 38 digits is kept as exact text.
  expect(back!.schema).toEqual(columns.map((c) => (c.name === "dwide" ? col("dwide", t("text")) : c)));
  const got = batchToRows(back!);
  const want = batchToRows(written);
  expect(got).toHaveLength(want.length);
  // DuckDB returns rows of one appended chunk in order.
  for (let i = 0; i < want.length; i++) expect(got[i]).toEqual(want[i]);
  // Typed storage, as record-batch.ts documents.
  const storage = Object.fromEntries(back!.schema.map((c, i) => [c.name, back!.columns[i]!.values.constructor.name]));
  expect(storage).toMatchObject({
    b: "Uint8Array",
    i16: "Int32Array",
    i32: "Int32Array",
    i64: "BigInt64Array",
    f32: "Float64Array",
    f64: "Float64Array",
    dt: "Int32Array",
    tm: "BigInt64Array",
    ts: "BigInt64Array",
    tz: "BigInt64Array",
    d38: "Array",
    txt: "Array",
  });
});

it("round-trips many rows across chunks and batches", async () => {
  const cols = [col("id", t("int64")), col("s", t("text")), col("ts", t("timestamptz")), col("n", t("int32"))];
  const count = 70_000;
  const written = batchFromRows(
    cols,
    Array.from({ length: count }, (_, i) => ({
      id: BigInt(i) * 1_000_000_007n,
      s: i % 7 === 0 ? null : `row ${i} ✓`,
      ts: BigInt(i) * 1_000_001n,
      n: i % 3 === 0 ? null : -i,
    })),
  );
  const batches = await roundTrip(written, "many");
  expect(batches.length).toBeGreaterThan(1);
  expect(batches.reduce((sum, b) => sum + b.length, 0)).toBe(count);
  const got = batches.flatMap((b) => batchToRows(b)).sort((a, b) => Number((a.id as bigint) - (b.id as bigint)));
  expect(got).toEqual(batchToRows(written));
});
