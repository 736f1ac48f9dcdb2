import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type Column,
  type CursorValue,
  dateCursor,
  decodeRunLogRow,
  encodeRunLogRecord,
  integerCursor,
  isSqlloadError,
  type RunLogRow,
  type TargetConnection,
  type TargetTableRef,
  textCursor,
} from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalFileStore } from "../src/files-store.js";
import { collectGarbage, type Manifest, readManifest } from "../src/index.js";
import { batch, col, load, openTarget, t, targetRows, tempDir, writeText } from "./harness.js";

let project: ReturnType<typeof tempDir>;
let target: TargetConnection;
let root: string;
let n = 0;
/** A fresh table per test; tests share one target folder. */
const ref = (name = "t"): TargetTableRef => ({ schema: "raw", name: `${name}${++n}` });
const folderOf = (r: TargetTableRef) => join(root, r.schema, r.name);
const manifestOf = (r: TargetTableRef): Manifest =>
  JSON.parse(readFileSync(join(folderOf(r), "manifest.json"), "utf8")) as Manifest;
const dataFiles = (r: TargetTableRef): string[] => {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "_sqlload") continue;
      if (entry.isDirectory()) walk(join(dir, entry.name), `${rel}${entry.name}/`);
      else if (entry.name.endsWith(".parquet")) out.push(`${rel}${entry.name}`);
    }
  };
  walk(folderOf(r), "");
  return out.sort();
};

beforeAll(async () => {
  project = tempDir();
  root = join(project.dir, "lake");
  target = await openTarget(project.dir, { partition_by: { byday: "day" } });
});
afterAll(async () => {
  await target?.close();
  project?.cleanup();
});

const logRow = (table: string, rows: number, cursor: CursorValue | null = null): RunLogRow =>
  encodeRunLogRecord({
    runId: `run-${rows}`,
    table,
    at: "2026-10-12T16:00:00.123Z",
    event: "run",
    cursor,
    rows,
    windowEnd: null,
  });

const cols = [col("id", t("int64")), col("v", t("text")), col("k", t("int64"))];
const rowsOf = (ids: number[], k = (id: number) => id) =>
  batch(
    cols,
    ids.map((id) => ({ id, v: `v${id}`, k: k(id) })),
  );

describe("tables and the manifest", () => {
  it("creates a table as a manifest with columns and no files, and evolves it", async () => {
    const r = ref();
    expect(await target.describeTable(r)).toBeNull();
    const created = await target.ensureTable(r, [col("id", t("int32")), col("v", t("text"))], {});
    expect(created.map((c) => c.name)).toEqual(["id", "v"]);
    expect(manifestOf(r)).toMatchObject({ generation: 1, files: [], runLog: { last: 0 } });
    // A new column is added; an integer widens (older files need no rewrite: readers unify them).
    const evolved = await target.ensureTable(r, [col("id", t("int64")), col("w", t("date"))], {});
    expect(evolved.map((c) => `${c.name}:${c.type.kind}`)).toEqual(["id:int64", "v:text", "w:date"]);
    expect((await target.describeTable(r))?.columns.map((c) => c.type.kind)).toEqual(["int64", "text", "date"]);
    const error = await target.ensureTable(r, [col("v", t("int64"))], {}).catch((e: unknown) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL302");
    expect(manifestOf(r).generation).toBe(2);
  });

  it("writes Parquet files named by the manifest, with row counts and statistics", async () => {
    const r = ref();
    await load(target, r, cols, [rowsOf([1, 2, 3])]);
    await load(target, r, cols, [rowsOf([4, 5])]);
    const manifest = manifestOf(r);
    expect(manifest.files.map((f) => f.rows)).toEqual([3, 2]);
    expect(manifest.files[0]?.stats.k).toEqual({ min: "1", max: "3", nulls: 0 });
    expect(dataFiles(r)).toEqual(manifest.files.map((f) => f.path).sort());
    expect((await targetRows(root, r)).map((row) => row.id)).toEqual(["1", "2", "3", "4", "5"]);
    expect(await target.maxCursor(r, "k", "integer")).toEqual(integerCursor(5));
  });
});

describe("maxCursor", () => {
  it("compares text by code point across files, from the manifest", async () => {
    const r = ref();
    const c = [col("c", t("text"))];
    await load(target, r, c, [batch(c, [{ c: "B1" }, { c: null }])]);
    await load(target, r, c, [batch(c, [{ c: "a9" }])]);
    expect(await target.maxCursor(r, "c", "text")).toEqual(textCursor("a9"));
    // U+FFFD sorts after U+1F600's surrogates in UTF-16, before it by code point.
    await load(target, r, c, [batch(c, [{ c: "\u{FFFD}" }])]);
    await load(target, r, c, [batch(c, [{ c: "\u{1F600}" }])]);
    expect(await target.maxCursor(r, "c", "text")).toEqual(textCursor("\u{1F600}"));
  });

  it("scans only files whose text statistics were too long to keep", async () => {
    const r = ref();
    const c = [col("c", t("text"))];
    const long = `z${"x".repeat(300)}`;
    await load(target, r, c, [batch(c, [{ c: "a" }])]);
    await load(target, r, c, [batch(c, [{ c: long }])]);
    expect(manifestOf(r).files[1]?.stats.c).toBeUndefined();
    expect(await target.maxCursor(r, "c", "text")).toEqual(textCursor(long));
  });

  it("is null for an absent table, an empty one, and a column only NULL", async () => {
    const r = ref();
    expect(await target.maxCursor(r, "k", "integer")).toBeNull();
    await target.ensureTable(r, cols, {});
    expect(await target.maxCursor(r, "k", "integer")).toBeNull();
    await load(target, r, cols, [batch(cols, [{ id: 1, v: "a", k: null }])]);
    expect(await target.maxCursor(r, "k", "integer")).toBeNull();
  });
});

describe("commit units", () => {
  it("abort leaves nothing: no file, no manifest change", async () => {
    const r = ref();
    await load(target, r, cols, [rowsOf([1])]);
    const before = manifestOf(r);
    const unit = await target.begin(r, { strategy: "append", columns: cols, cursor: { column: "k", kind: "integer" } });
    await unit.write(rowsOf([2, 3]));
    await unit.appendRunLog(logRow("raw.t", 2));
    await unit.abort();
    expect(manifestOf(r)).toEqual(before);
    expect(dataFiles(r)).toEqual(before.files.map((f) => f.path));
    expect(await target.readRunLog(r)).toEqual([]);
  });

  it("delete_insert drops files wholly in the range, rewrites those that straddle it, and keeps the rest", async () => {
    const r = ref();
    await load(target, r, cols, [rowsOf([1, 2, 3])]); // k 1..3: untouched
    await load(target, r, cols, [rowsOf([4, 5, 6])]); // straddles k >= 5
    await load(target, r, cols, [rowsOf([7, 8])]); // wholly inside
    const [a, b, c] = manifestOf(r).files;
    const cursor = { column: "k", kind: "integer" as const };
    await load(target, r, cols, [rowsOf([5, 9])], { strategy: "delete_insert", cursor, deleteRange: { from: integerCursor(5) } });
    const after = manifestOf(r);
    const paths = after.files.map((f) => f.path);
    expect(paths).toContain(a?.path);
    expect(paths).not.toContain(b?.path);
    expect(paths).not.toContain(c?.path);
    expect(after.files.map((f) => f.rows)).toEqual([3, 1, 2]);
    expect((await targetRows(root, r)).map((row) => row.id)).toEqual(["1", "2", "3", "4", "5", "9"]);
    expect(await target.maxCursor(r, "k", "integer")).toEqual(integerCursor(9));
  });

  it("with partition_by, rewrites only the partitions that hold the range", async () => {
    const r: TargetTableRef = { schema: "raw", name: "byday" };
    const c = [col("id", t("int64")), col("day", t("date"))];
    const d = (s: string) => Math.round(Date.parse(`${s}T00:00:00Z`) / 86_400_000);
    const rows = (list: [number, string][]) =>
      batch(
        c,
        list.map(([id, day]) => ({ id, day })),
      );
    await load(target, r, c, [
      rows([
        [1, "2026-10-01"],
        [2, "2026-10-02"],
        [3, "2026-10-02"],
        [4, "2026-10-03"],
      ]),
    ]);
    expect(dataFiles(r).map((p) => p.split("/")[0])).toEqual(["day=2026-10-01", "day=2026-10-02", "day=2026-10-03"]);
    const first = manifestOf(r).files.find((f) => f.path.startsWith("day=2026-10-01"));
    const cursor = { column: "day", kind: "date" as const };
    await load(
      target,
      r,
      c,
      [
        rows([
          [5, "2026-10-02"],
          [6, "2026-10-04"],
        ]),
      ],
      { strategy: "delete_insert", cursor, deleteRange: { from: dateCursor(d("2026-10-02")) } },
    );
    const after = manifestOf(r);
    expect(after.partitionBy).toBe("day");
    expect(after.files.map((f) => f.path)).toContain(first?.path);
    expect(after.files.map((f) => `${f.partition?.value}:${f.rows}`).sort()).toEqual([
      "2026-10-01:1",
      "2026-10-02:1",
      "2026-10-04:1",
    ]);
    expect((await targetRows(root, r)).map((row) => row.id)).toEqual(["1", "5", "6"]);
  });

  it("merge upserts on the primary key, rewriting only files that hold a key", async () => {
    const r = ref();
    await load(target, r, cols, [rowsOf([1, 2])]);
    await load(target, r, cols, [rowsOf([10, 11])]);
    const [a, b] = manifestOf(r).files;
    const merge = { strategy: "merge" as const, primaryKey: ["id"] };
    // id 2 twice in one unit: the later write wins.
    await load(
      target,
      r,
      cols,
      [
        batch(cols, [{ id: 2, v: "first", k: 2 }]),
        batch(cols, [
          { id: 2, v: "second", k: 2 },
          { id: 3, v: "v3", k: 3 },
        ]),
      ],
      merge,
    );
    const paths = manifestOf(r).files.map((f) => f.path);
    expect(paths).not.toContain(a?.path);
    expect(paths).toContain(b?.path);
    expect((await targetRows(root, r, "id")).map((row) => `${row.id}:${row.v}`)).toEqual([
      "1:v1",
      "2:second",
      "3:v3",
      "10:v10",
      "11:v11",
    ]);
  });

  it("merge: a unit of more rows than one merge takes (262,144), a key's row from its last batch", async () => {
    const r = ref();
    await load(target, r, cols, [rowsOf([1, 2])]);
    const expected = new Map<number, string>([
      [1, "v1"],
      [2, "v2"],
    ]);
    const unit = await target.begin(r, { strategy: "merge", columns: cols, primaryKey: ["id"] });
    // Batches 1-3 (300,000 rows) are merged at the third, batch 4 at commit: keys 1-10 come in
    // batches 1 and 2 (one merge), keys 1-5 again in batch 4 (the next).
    const keys = [
      Array.from({ length: 100_000 }, (_, i) => i + 1),
      Array.from({ length: 100_000 }, (_, i) => (i < 10 ? i + 1 : 100_001 + i)),
      Array.from({ length: 100_000 }, (_, i) => 200_001 + i),
      [1, 2, 3, 4, 5, 250_000],
    ];
    for (const [b, ids] of keys.entries()) {
      for (const id of ids) expected.set(id, `b${b + 1}`);
      await unit.write(
        batch(
          cols,
          ids.map((id) => ({ id, v: `b${b + 1}`, k: id })),
        ),
      );
    }
    await unit.commit();
    const back = await targetRows(root, r, "id");
    expect(back.length).toBe(expected.size);
    const wrong = back.filter((row) => expected.get(Number(row.id)) !== row.v);
    expect(wrong).toEqual([]);
  });

  it("replace writes a new file set and swaps the manifest; the old files go with the next collection", async () => {
    const r = ref();
    await load(target, r, cols, [rowsOf([1, 2])]);
    const old = manifestOf(r).files.map((f) => f.path);
    const newCols = [col("id", t("int64")), col("name", t("text"))];
    await load(target, r, newCols, [batch(newCols, [{ id: 7, name: "x" }])], { strategy: "replace" });
    const manifest = manifestOf(r);
    expect(manifest.columns?.map((c) => c.name)).toEqual(["id", "name"]);
    expect(await targetRows(root, r)).toEqual([{ id: "7", name: "x" }]);
    expect(dataFiles(r)).toEqual(expect.arrayContaining(old));
    const store = new LocalFileStore(root);
    await collectGarbage(store, r, await readManifest(store, r, "x"));
    expect(dataFiles(r)).toEqual(manifest.files.map((f) => f.path));
  });

  it("refuses to commit over a manifest another writer replaced meanwhile", async () => {
    const r = ref();
    await load(target, r, cols, [rowsOf([1])]);
    const unit = await target.begin(r, { strategy: "append", columns: cols });
    await unit.write(rowsOf([2]));
    await load(target, r, cols, [rowsOf([3])]);
    const error = await unit.commit().catch((e: unknown) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL305");
    expect((await targetRows(root, r)).map((row) => row.id)).toEqual(["1", "3"]);
  });

  it.each(["append", "merge"] as const)(
    "%s: matches batch columns by exact name (Parquet names are case-sensitive)",
    async (strategy) => {
      const r = ref();
      await load(target, r, cols, [rowsOf([1])]);
      const unit = await target.begin(r, { strategy, columns: cols, primaryKey: ["id"] });
      const upper = [col("ID", t("int64")), col("v", t("text")), col("k", t("int64"))];
      const error = await unit.write(batch(upper, [{ ID: 2, v: "v2", k: 2 }])).catch((e: unknown) => e);
      await unit.abort();
      expect(isSqlloadError(error) && error.code).toBe("SL305");
      expect((error as Error).message).toContain('has no column "ID"');
      expect((await targetRows(root, r)).map((row) => row.id)).toEqual(["1"]);
    },
  );

  it("refuses a decimal with more places than its column (SL300) rather than rounding it", async () => {
    const r = ref();
    const money = [col("id", t("int64")), col("amount", { kind: "decimal", precision: 12, scale: 2 })];
    await target.ensureTable(r, money, {});
    const unit = await target.begin(r, { strategy: "append", columns: money });
    const error = await unit.write(batch(money, [{ id: 1, amount: "1.235" }])).catch((e: unknown) => e);
    await unit.abort();
    expect(isSqlloadError(error) && error.code).toBe("SL300");
    expect((error as Error).message).toMatch(/more than 2 decimal places/);
  });

  it("round-trips every logical type through Parquet", async () => {
    const r = ref();
    const all: Column[] = [
      col("b", t("boolean")),
      col("i16", t("int16")),
      col("i32", t("int32")),
      col("i64", t("int64")),
      col("f32", t("float32")),
      col("f64", t("float64")),
      col("dec", { kind: "decimal", precision: 12, scale: 2 }),
      col("txt", t("text")),
      col("bin", t("bytes")),
      col("u", t("uuid")),
      col("j", t("json")),
      col("d", t("date")),
      col("tm", t("time")),
      col("ts", t("timestamp")),
      col("tz", t("timestamptz")),
      col("l", { kind: "list", element: t("int64") }),
    ];
    const row = {
      b: true,
      i16: -3,
      i32: 70000,
      i64: 2n ** 62n + 1n,
      f32: 1.5,
      f64: 2.25,
      dec: "1234567890.12",
      txt: "héllo \u{1F600}",
      bin: new Uint8Array([0, 1, 255]),
      u: "0b1d2c3e-4f50-4a6b-8c7d-9e0f1a2b3c4d",
      j: '{"a":[1,2]}',
      d: "2026-10-12",
      tm: "16:00:00.000001",
      ts: "2026-10-12T16:00:00.123456Z",
      tz: "2026-10-12T16:00:00.654321Z",
      l: [1n, null, 3n],
    };
    await load(target, r, all, [batch(all, [row, {}])]);
    const [got, nulls] = await targetRows(root, r, "b NULLS LAST");
    expect(got).toEqual({
      b: true,
      i16: -3,
      i32: 70000,
      i64: "4611686018427387905",
      f32: 1.5,
      f64: 2.25,
      dec: "1234567890.12",
      txt: "héllo \u{1F600}",
      bin: "\\x00\\x01\\xFF",
      u: "0b1d2c3e-4f50-4a6b-8c7d-9e0f1a2b3c4d",
      j: '{"a":[1,2]}',
      d: "2026-10-12",
      tm: "16:00:00.000001",
      ts: "2026-10-12 16:00:00.123456",
      tz: "2026-10-12 16:00:00.654321+00",
      l: ["1", null, "3"],
    });
    expect(Object.values(nulls ?? {}).every((v) => v === null)).toBe(true);
    expect((await target.describeTable(r))?.columns.map((c) => c.type)).toEqual(all.map((c) => c.type));
  });
});

describe("run log", () => {
  it("keeps one object per record, in order, committed with the data", async () => {
    const r = ref();
    await target.ensureTable(r, cols, {});
    for (const rows of [1, 2, 3]) {
      const unit = await target.begin(r, { strategy: "append", columns: cols });
      await unit.write(rowsOf([rows]));
      await unit.appendRunLog(logRow("raw.t", rows, integerCursor(rows)));
      await unit.commit();
    }
    const log = await target.readRunLog(r);
    expect(log.map((row, i) => decodeRunLogRow(row, i).rows)).toEqual([1, 2, 3]);
    expect(readdirSync(join(folderOf(r), "_sqlload", "runs"))).toEqual([
      "00000000000000000001.json",
      "00000000000000000002.json",
      "00000000000000000003.json",
    ]);
    expect(manifestOf(r).runLog.last).toBe(3);
  });

  it("logs in a unit on a table that does not exist yet, which stays absent", async () => {
    const r = ref();
    const unit = await target.begin(r, { strategy: "delete_insert", columns: [], cursor: { column: "k", kind: "integer" } });
    await unit.deleteRange({ from: integerCursor(1) });
    await unit.appendRunLog(logRow("raw.t", 0));
    await unit.commit();
    expect(await target.describeTable(r)).toBeNull();
    expect(await target.readRunLog(r)).toHaveLength(1);
  });

  it("ignores records past the manifest's count, and reports a corrupt one (SL500)", async () => {
    const r = ref();
    await load(target, r, cols, [rowsOf([1])]);
    const runs = join(folderOf(r), "_sqlload", "runs");
    const unit = await target.begin(r, { strategy: "append", columns: cols });
    await unit.appendRunLog(logRow("raw.t", 1));
    await unit.commit();
    // Left by a commit that crashed before its manifest rename:
    writeFileSync(join(runs, "00000000000000000002.json"), JSON.stringify({ seq: 2, body: "{}", formatVersion: 1 }));
    expect(await target.readRunLog(r)).toHaveLength(1);
    writeFileSync(join(runs, "00000000000000000001.json"), "{not json");
    const [row] = await target.readRunLog(r);
    const error = (() => {
      try {
        decodeRunLogRow(row!, 0);
      } catch (e) {
        return e;
      }
    })();
    expect(isSqlloadError(error) && error.code).toBe("SL500");
  });
});

describe("locks and garbage", () => {
  it("a second lock is refused (SL306, retryable); release frees it", async () => {
    const r = ref();
    const lock = await target.lockTable!(r);
    const error = await target.lockTable!(r).catch((e: unknown) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL306");
    expect(isSqlloadError(error) && error.retryable).toBe(true);
    await lock.release();
    expect(existsSync(join(folderOf(r), "_sqlload", "lease.json"))).toBe(false);
    await (await target.lockTable!(r)).release();
  });

  it("takes over the lease of a dead process and removes what its crashed commit left", async () => {
    const r = ref();
    await load(target, r, cols, [rowsOf([1, 2])]);
    const live = manifestOf(r).files.map((f) => f.path);
    const dir = folderOf(r);
    // What a run killed between writing its files and the manifest rename leaves behind:
    writeFileSync(join(dir, "part-00000009-deadbeef0000.parquet"), "orphan");
    writeFileSync(join(dir, "manifest.json.tmp"), "{");
    writeText(join(dir, "_sqlload", "runs", "00000000000000000007.json"), "{}");
    writeFileSync(join(dir, "notes.txt"), "not ours");
    writeText(
      join(dir, "_sqlload", "lease.json"),
      JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import("node:os")).hostname(), at: "x", token: "t" }),
    );
    const lock = await target.lockTable!(r);
    try {
      expect(dataFiles(r)).toEqual(live);
      expect(existsSync(join(dir, "manifest.json.tmp"))).toBe(false);
      expect(existsSync(join(dir, "_sqlload", "runs", "00000000000000000007.json"))).toBe(false);
      expect(existsSync(join(dir, "notes.txt"))).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, "_sqlload", "lease.json"), "utf8")).pid).toBe(process.pid);
    } finally {
      await lock.release();
    }
  });

  it("does not take over a lease held on another host", async () => {
    const r = ref();
    await target.ensureTable(r, cols, {});
    writeText(join(folderOf(r), "_sqlload", "lease.json"), JSON.stringify({ pid: 1, host: "elsewhere", at: "x", token: "t" }));
    const error = await target.lockTable!(r).catch((e: unknown) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL306");
    expect((error as Error).message).toContain("elsewhere");
  });
});
