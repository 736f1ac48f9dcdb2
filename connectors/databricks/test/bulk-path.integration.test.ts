import { expiringBatch } from "@sqlload/conformance";
import { batchFromRows, type Column, type LogicalType, type TargetTableRef } from "@sqlload/core";
import { type RequestMatcher, requestMatching } from "@sqlload/testing/emulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabricksTarget } from "../src/databricks-target.js";
import { EmulatedWarehouse, type WritePath } from "./harness.js";

// The bulk path against the emulated warehouse: Parquet staged in a Unity Catalog volume with the
// driver's PUT, COPY INTO the build table, and the files removed whatever the unit's end.
const col = (name: string, type: LogicalType): Column => ({ name, type, nullable: true });

/** Every kind of value that must stay exact through the file, with NULLs in every column. */
const COLUMNS: readonly Column[] = [
  col("id", { kind: "int64" }),
  col("big", { kind: "int64" }),
  col("dec", { kind: "decimal", precision: 38, scale: 10 }),
  col("f", { kind: "float64" }),
  col("ts", { kind: "timestamp" }),
  col("tz", { kind: "timestamptz" }),
  col("d", { kind: "date" }),
  col("t", { kind: "time" }),
  col("bin", { kind: "bytes" }),
  col("txt", { kind: "text" }),
  col("u", { kind: "uuid" }),
  col("ints", { kind: "list", element: { kind: "int64" } }),
  col("bins", { kind: "list", element: { kind: "bytes" } }),
  col("nested", { kind: "list", element: { kind: "list", element: { kind: "text" } } }),
  col("dates", { kind: "list", element: { kind: "list", element: { kind: "date" } } }),
];

const ROWS: readonly Record<string, unknown>[] = [
  {
    id: 1n,
    big: 2n ** 63n - 1n,
    dec: "1234567890123456789012345678.1234567890",
    f: -0,
    ts: "1969-12-31T23:59:59.999999Z",
    tz: "2026-10-12T16:00:00.000001+02:00",
    d: "1900-03-01",
    t: "23:59:59.999999",
    bin: new Uint8Array([0, 255, 92, 0]),
    txt: "\u{1f600}\u{10ffff}\ufffd\ue000 'quoted' \\ e\u0301",
    u: "123e4567-e89b-12d3-a456-426614174000",
    ints: [-(2n ** 63n), null, 2n ** 53n + 1n],
    bins: [new Uint8Array([1, 2]), null, new Uint8Array([])],
    nested: [["a", null, "\u{1f600}"], [], null],
    dates: [["2024-02-29"], [null]],
  },
  {
    id: 2n,
    big: -(2n ** 53n) - 1n,
    dec: "-0.0000000001",
    f: 5e-324,
    ts: "2262-04-11T23:47:16.854775Z",
    tz: "1970-01-01T00:00:00Z",
    d: "2024-02-29",
    t: "00:00:00",
    bin: new Uint8Array([]),
    txt: "",
    u: "ffffffff-ffff-ffff-ffff-ffffffffffff",
    ints: [],
    bins: [],
    nested: [[""]],
    dates: [],
  },
  Object.fromEntries([...COLUMNS.map((c) => [c.name, null]), ["id", 3n]]),
];

describe("the Databricks bulk path (volume PUT + COPY INTO)", () => {
  let warehouse: EmulatedWarehouse;
  let schemas = 0;
  beforeAll(async () => {
    warehouse = await EmulatedWarehouse.start();
  });
  afterAll(async () => {
    await warehouse?.close();
  });

  const requests = () => warehouse.emulator.failures.requests;
  const shapesSince = (n: number) =>
    requests()
      .slice(n)
      .flatMap((r) => [r.operation, ...r.shapes]);

  async function withTarget<T>(
    transactions: "atomic" | "none",
    path: WritePath,
    body: (target: DatabricksTarget, ref: TargetTableRef) => Promise<T>,
  ): Promise<T> {
    const schema = `bulk_${transactions}_${++schemas}`;
    const target = await warehouse.open(transactions, schema, path);
    try {
      return await body(target, { schema, name: "t" });
    } finally {
      await target.close();
    }
  }

  async function load(target: DatabricksTarget, ref: TargetTableRef, rows: readonly Record<string, unknown>[]) {
    const columns = await target.ensureTable(ref, COLUMNS, {});
    const unit = await target.begin(ref, { strategy: "append", columns });
    await unit.write(batchFromRows(COLUMNS, rows));
    await unit.commit();
  }

  const sorted = async (ref: TargetTableRef) =>
    ((await warehouse.readAll(ref)) ?? []).sort((a, b) => Number(a.id) - Number(b.id));

  for (const transactions of ["atomic", "none"] as const) {
    it(`keeps every value exact through Parquet, equal to the INSERT path (transactions = "${transactions}")`, async () => {
      const viaInsert = await withTarget(transactions, "insert", async (target, ref) => {
        await load(target, ref, ROWS);
        return sorted(ref);
      });
      const before = requests().length;
      const viaVolume = await withTarget(transactions, { threshold: 1 }, async (target, ref) => {
        await load(target, ref, ROWS);
        return sorted(ref);
      });
      const seen = shapesSince(before);
      for (const step of ["staging_put", "volume_put", "copy_into", "staging_remove", "volume_delete"])
        expect(seen).toContain(step);
      expect(seen).not.toContain("insert_values");
      expect(viaVolume).toEqual(viaInsert);
      const [first, , last] = viaVolume;
      expect(first).toMatchObject({
        big: 2n ** 63n - 1n,
        dec: "1234567890123456789012345678.1234567890",
        ts: -1n,
        tz: 1_791_813_600_000_001n,
        t: "23:59:59.999999",
        txt: ROWS[0]?.txt,
        ints: [-(2n ** 63n), null, 2n ** 53n + 1n],
        nested: [["a", null, "\u{1f600}"], [], null],
        dates: [[19782], [null]],
      });
      const hex = (v: unknown) => (v === null ? null : Buffer.from(v as Uint8Array).toString("hex"));
      expect(hex(first?.bin)).toBe("00ff5c00");
      expect(((first?.bins ?? []) as unknown[]).map(hex)).toEqual(["0102", null, ""]);
      expect(Object.is(first?.f, -0)).toBe(true);
      expect(Object.values(last ?? {}).filter((v) => v !== null)).toEqual([3n]);
      expect(warehouse.emulator.volumes.paths).toEqual([]);
    });
  }

  it("sends a unit below the threshold as INSERTs, and one at the threshold through the volume", async () => {
    await withTarget("none", { threshold: 3 }, async (target, ref) => {
      let before = requests().length;
      await load(target, ref, ROWS.slice(0, 2));
      expect(shapesSince(before)).toContain("insert_values");
      expect(shapesSince(before)).not.toContain("staging_put");
      before = requests().length;
      await load(
        target,
        ref,
        ROWS.map((r) => ({ ...r, id: (r.id as bigint) + 10n })),
      );
      expect(shapesSince(before)).toContain("copy_into");
      expect(shapesSince(before)).not.toContain("insert_values");
      expect((await warehouse.readAll(ref))?.length).toBe(5);
    });
  });

  it("stages batches it holds back under the threshold from what it read while each write lasted", async () => {
    const viaInsert = await withTarget("none", "insert", async (target, ref) => {
      await load(target, ref, ROWS);
      return sorted(ref);
    });
    const before = requests().length;
    const held = await withTarget("none", { threshold: 3 }, async (target, ref) => {
      const columns = await target.ensureTable(ref, COLUMNS, {});
      const unit = await target.begin(ref, { strategy: "append", columns });
      // Two batches below the threshold wait in the unit; the third crosses it and stages all three.
      for (const rows of [ROWS.slice(0, 1), ROWS.slice(1, 2), ROWS.slice(2)]) {
        const { batch, expire } = expiringBatch(COLUMNS, rows);
        await unit.write(batch);
        expire();
      }
      await unit.commit();
      return sorted(ref);
    });
    expect(shapesSince(before)).toContain("copy_into");
    expect(held).toEqual(viaInsert);
  });

  const failures: readonly [string, RequestMatcher][] = [
    ["the upload", requestMatching({ operation: "volume_put" })],
    ["COPY INTO", requestMatching({ shape: "copy_into" })],
    ["the commit after the load", (r) => r.shapes.includes("begin_atomic")],
  ];
  for (const [where, match] of failures) {
    it(`a failure at ${where} fails the unit with a coded error, lands nothing and leaves no file`, async () => {
      await withTarget("atomic", { threshold: 1 }, async (target, ref) => {
        const columns = await target.ensureTable(ref, COLUMNS, {});
        const hit = warehouse.emulator.failures.failNext(match, "injected", { status: 503, reason: "TEMPORARILY_UNAVAILABLE" });
        const unit = await target.begin(ref, { strategy: "append", columns });
        await unit.write(batchFromRows(COLUMNS, ROWS));
        await unit.appendRunLog({ runId: "r1", table: "t", at: "2026-12-01T00:00:00Z", formatVersion: 1, body: "{}" });
        const error = await unit.commit().then(
          () => undefined,
          (e: unknown) => e,
        );
        await hit;
        expect(error).toMatchObject({ code: expect.stringMatching(/^SL\d+$/) });
        expect(await warehouse.readAll(ref)).toEqual([]);
        expect(await target.readRunLog(ref)).toEqual([]);
        expect(warehouse.emulator.volumes.paths).toEqual([]);
        // The table's build tables are gone too.
        const left = await warehouse.emulator.database.query(
          "SELECT count(*) FROM information_schema.tables WHERE table_schema = $s AND table_name LIKE '\\_sqlload\\_build%' ESCAPE '\\'",
          { s: ref.schema },
        );
        expect(Number(left.rows[0]?.[0])).toBe(0);
      });
    });
  }

  it("an aborted unit removes the files it uploaded", async () => {
    await withTarget("none", { threshold: 1 }, async (target, ref) => {
      const columns = await target.ensureTable(ref, COLUMNS, {});
      // The load fails after the upload; abort must still remove the file.
      warehouse.emulator.failures.failNext(requestMatching({ shape: "copy_into" }), "injected");
      const unit = await target.begin(ref, { strategy: "append", columns });
      await unit.write(batchFromRows(COLUMNS, ROWS));
      await expect(unit.commit()).rejects.toMatchObject({ code: expect.stringMatching(/^SL/) });
      await unit.abort();
      expect(warehouse.emulator.volumes.paths).toEqual([]);
    });
  });

  it("sweeps the files a run could not remove before the next run's first upload", async () => {
    const schema = `bulk_sweep_${++schemas}`;
    const ref = { schema, name: "t" };
    const first = await warehouse.open("none", schema, { threshold: 1 });
    try {
      // The REMOVE's HTTP request fails: the file stays in the table's folder.
      warehouse.emulator.failures.failNext(requestMatching({ operation: "volume_delete" }), "gone away", { status: 500 });
      await load(first, ref, ROWS);
    } finally {
      await first.close();
    }
    const [left] = warehouse.emulator.volumes.paths;
    expect(left).toMatch(
      /^\/Volumes\/sqlload\/staging\/files\/_sqlload\/bulk_sweep_\d+__t-[0-9a-f]{12}\/[0-9a-f-]+-0000\.parquet$/,
    );
    const second = await warehouse.open("none", schema, { threshold: 1 });
    try {
      await load(
        second,
        ref,
        ROWS.map((r) => ({ ...r, id: (r.id as bigint) + 10n })),
      );
    } finally {
      await second.close();
    }
    expect(warehouse.emulator.volumes.paths).toEqual([]);
    expect((await warehouse.readAll(ref))?.length).toBe(6);
  });

  it("merges through the volume keeping each key's last row written", async () => {
    await withTarget("atomic", { threshold: 1 }, async (target, ref) => {
      const columns = await target.ensureTable(ref, COLUMNS, { primaryKey: ["id"] });
      await load(target, ref, ROWS);
      const unit = await target.begin(ref, { strategy: "merge", columns, primaryKey: ["id"] });
      await unit.write(batchFromRows(COLUMNS, [{ id: 1n, txt: "first" }]));
      await unit.write(
        batchFromRows(COLUMNS, [
          { id: 1n, txt: "second" },
          { id: 9n, txt: "new" },
        ]),
      );
      await unit.commit();
      const rows = await sorted(ref);
      expect(rows.map((r) => [r.id, r.txt])).toEqual([
        [1n, "second"],
        [2n, ""],
        [3n, null],
        [9n, "new"],
      ]);
    });
  });
});
