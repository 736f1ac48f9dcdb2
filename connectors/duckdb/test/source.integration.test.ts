import { spawn } from "node:child_process";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import {
  BATCH_BYTES,
  batchToRows,
  type CursorRange,
  type CursorValue,
  parseTimestampMicros,
  type ReadRequest,
  type RecordBatch,
  type SourceConnection,
  type SourceItem,
  type SourceTableRequest,
} from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATCH_ROWS } from "../src/duckdb-batches.js";
import connector from "../src/index.js";
import { batch, col, load, openSource, openTarget, t, tempProject } from "./harness.js";

let project: ReturnType<typeof tempProject>;
let source: SourceConnection;
const ROWS = 70_000;

beforeAll(async () => {
  project = tempProject();
  // The fixture is written by a plain DuckDB instance, closed before the source opens the file.
  const instance = await DuckDBInstance.create(join(project.dir, "source.duckdb"));
  const c = await instance.connect();
  await c.run(`
    CREATE SCHEMA app;
    CREATE TABLE app.events AS SELECT
      i::BIGINT AS id,
      CASE WHEN i % 1000 = 0 THEN NULL ELSE TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_microseconds(i * 1000001) END AS at,
      (i // 100)::INTEGER AS bucket,
      1 AS one,
      CASE WHEN i < ${BATCH_ROWS} THEN i ELSE ${BATCH_ROWS} + i // 50000 END AS grp,
      'payload ' || i AS payload
    FROM range(${ROWS}) r(i);
    CREATE TABLE app.wide AS SELECT i::BIGINT AS id, repeat('x', 1000) || i AS pad FROM range(20000) r(i);
    CREATE TABLE app.tags AS SELECT i::BIGINT AS id, CASE WHEN i < 500 THEN NULL ELSE list_transform(range(20), k -> repeat('t', 5000) || k) END AS tags FROM range(800) r(i);
    CREATE TABLE main.words (w VARCHAR, n INTEGER);
    INSERT INTO main.words VALUES ('B1', 1), ('a9', 2), ('\uFFFD', 3), ('\u{1F600}', 4), (NULL, 5), ('a', 6);
    CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
    CREATE TABLE main.odd (
      ti TINYINT, uti UTINYINT, usi USMALLINT, ui UINTEGER, ub UBIGINT, hi HUGEINT,
      tsn TIMESTAMP_NS, tsm TIMESTAMP_MS, tss TIMESTAMP_S, e mood, s STRUCT(a INTEGER, b VARCHAR), m MAP(VARCHAR, INTEGER),
      iv INTERVAL, arr INTEGER[3], le mood[], tmtz TIMETZ, bl BLOB
    );
    INSERT INTO main.odd VALUES (
      -128, 255, 65535, 4294967295, 18446744073709551615, -170141183460469231731687303715884105728,
      TIMESTAMP_NS '2026-01-02 03:04:05.123456789', TIMESTAMP_MS '2026-01-02 03:04:05.123', TIMESTAMP_S '2026-01-02 03:04:05',
      'happy', {'a': 1, 'b': 'x'}, MAP {'k': 2}, INTERVAL 3 DAY, [1, 2, 3], ['ok', 'sad'], TIMETZ '01:02:03+04', '\\x00\\xFF'::BLOB
    );
    CREATE VIEW app.recent AS SELECT id, "at" FROM app.events WHERE id >= ${ROWS - 10};
  `);
  c.closeSync();
  instance.closeSync();
  source = await openSource(project.dir, "source.duckdb");
});
afterAll(async () => {
  await source?.close();
  project?.cleanup();
});

const request = (key: string, cursorColumn?: string, columns?: string[]): SourceTableRequest => {
  const [schema, name] = key.includes(".") ? key.split(".") : [undefined, key];
  return { table: { schema, name: name!, key }, cursorColumn, columns, options: {} };
};
const ts = (text: string): CursorValue => ({ kind: "timestamp", value: parseTimestampMicros(text)! });

async function readAll(req: SourceTableRequest, read: Partial<ReadRequest> = {}): Promise<SourceItem[]> {
  const reader = await source.openTable(req, await source.describeTable(req));
  const items: SourceItem[] = [];
  try {
    for await (const item of reader.read({
      range: {},
      includeNulls: false,
      ordered: false,
      signal: new AbortController().signal,
      ...read,
    })) {
      items.push(item);
    }
  } finally {
    await reader.close();
  }
  return items;
}
const batchesOf = (items: SourceItem[]) =>
  items.filter((i): i is { kind: "batch"; batch: RecordBatch } => i.kind === "batch").map((i) => i.batch);
const rowsOf = (items: SourceItem[]) => batchesOf(items).flatMap((b) => batchToRows(b));

describe("describeTable", () => {
  it("gives columns, logical types, the cursor kind and nullability", async () => {
    const info = await source.describeTable(request("app.events", "at"));
    expect(info.columns).toEqual([
      col("id", t("int64")),
      col("at", t("timestamptz")),
      col("bucket", t("int32")),
      col("one", t("int32")),
      col("grp", t("int64")),
      col("payload", t("text")),
    ]);
    expect(info.cursorKind).toBe("timestamp");
    expect(info.cursorNullable).toBe(true);
    expect(source.capabilities).toEqual({ exactRange: true, orderedReads: true, snapshot: true, firstCursorLookup: true });
  });

  it("reads the requested columns, adding the cursor column", async () => {
    const info = await source.describeTable(request("app.events", "id", ["payload", "bucket"]));
    expect(info.columns?.map((c) => c.name)).toEqual(["payload", "bucket", "id"]);
    const recent = await source.describeTable(request("app.recent", "id"));
    expect(recent.columns?.map((c) => c.name)).toEqual(["id", "at"]);
  });

  it("maps DuckDB types without a logical twin to the nearest exact one", async () => {
    const info = await source.describeTable(request("odd"));
    expect(Object.fromEntries(info.columns!.map((c) => [c.name, c.type]))).toEqual({
      ti: t("int16"),
      uti: t("int16"),
      usi: t("int32"),
      ui: t("int64"),
      ub: { kind: "decimal", precision: 20, scale: 0 },
      hi: { kind: "decimal", precision: 39, scale: 0 },
      tsn: t("timestamp"),
      tsm: t("timestamp"),
      tss: t("timestamp"),
      e: t("text"),
      s: t("json"),
      m: t("json"),
      iv: t("text"),
      arr: { kind: "list", element: t("int32") },
      le: { kind: "list", element: t("text") },
      tmtz: t("text"),
      bl: t("bytes"),
    });
    const [row] = rowsOf(await readAll(request("odd")));
    expect(row).toEqual({
      ti: -128,
      uti: 255,
      usi: 65535,
      ui: 4294967295n,
      ub: "18446744073709551615",
      hi: "-170141183460469231731687303715884105728",
      tsn: parseTimestampMicros("2026-01-02T03:04:05.123456Z"),
      tsm: parseTimestampMicros("2026-01-02T03:04:05.123Z"),
      tss: parseTimestampMicros("2026-01-02T03:04:05Z"),
      e: "happy",
      s: '{"a":1,"b":"x"}',
      m: '{"k":2}',
      iv: "3 days",
      arr: [1, 2, 3],
      le: ["ok", "sad"],
      tmtz: "01:02:03+04",
      bl: new Uint8Array([0, 255]),
    });
  });

  it("fails with SL206, SL200, SL201 and SL209 naming what is missing", async () => {
    await expect(source.describeTable(request("app.nope"))).rejects.toMatchObject({
      code: "SL206",
      message: expect.stringContaining("app.nope"),
    });
    await expect(source.describeTable(request("nope.events"))).rejects.toMatchObject({ code: "SL206" });
    await expect(source.describeTable(request("app.events", "nope"))).rejects.toMatchObject({ code: "SL200" });
    await expect(source.describeTable(request("odd", "bl"))).rejects.toMatchObject({ code: "SL201" });
    await expect(source.describeTable(request("app.events", "id", ["nope"]))).rejects.toMatchObject({ code: "SL209" });
  });
});

describe("reads", () => {
  it("returns exactly the half-open range, without NULL cursors unless asked", async () => {
    const cases: [CursorRange, boolean, number][] = [
      [{ from: { kind: "integer", value: 100n }, to: { kind: "integer", value: 200n } }, false, 100],
      [{ from: { kind: "integer", value: 100n }, fromInclusive: false, to: { kind: "integer", value: 200n } }, false, 99],
      [{ from: { kind: "integer", value: BigInt(ROWS - 5) } }, false, 5],
      [{}, false, ROWS],
    ];
    for (const [range, includeNulls, count] of cases) {
      const rows = rowsOf(await readAll(request("app.events", "id"), { range, includeNulls }));
      expect(rows).toHaveLength(count);
    }
    // Timestamps: row i is at 2026-01-01 + i * 1.000001 s; rows 1..3 are at .000001 s steps past whole seconds.
    const timed = rowsOf(
      await readAll(request("app.events", "at", ["id"]), {
        range: { from: ts("2026-01-01T00:00:01.000001Z"), to: ts("2026-01-01T00:00:03.000003Z") },
      }),
    );
    expect(timed.map((r) => r.id)).toEqual([1n, 2n]);
    const withNulls = rowsOf(
      await readAll(request("app.events", "at", ["id"]), { range: { to: ts("2026-01-01T00:00:02Z") }, includeNulls: true }),
    );
    // Row 0 is a NULL (every 1000th is); row 1 is the one non-NULL before 00:00:02.
    const nullIds = Array.from({ length: ROWS / 1000 }, (_, k) => BigInt(k * 1000));
    expect(withNulls.map((r) => r.id as bigint).sort((a, b) => Number(a - b))).toEqual([0n, 1n, ...nullIds.slice(1)]);
    const noNulls = rowsOf(await readAll(request("app.events", "at", ["id"]), { range: {} }));
    expect(noNulls).toHaveLength(ROWS - ROWS / 1000);
  });

  it("cuts batches of wide rows by bytes, not only by rows: about 8 MB of 1 KB rows, not 32 MB", async () => {
    const batches = batchesOf(await readAll(request("app.wide", "id"), { ordered: true }));
    const textBytes = (b: RecordBatch) => (b.columns[1]!.values as string[]).reduce((n, s) => n + s.length, 0);
    expect(batches.reduce((n, b) => n + b.length, 0)).toBe(20_000);
    // 20,000 rows fit one batch by count (BATCH_ROWS); by bytes (20.2 MB) they make three.
    expect(batches.length).toBe(Math.ceil((20_000 * 1010) / BATCH_BYTES));
    // Cut after the row that reaches the bound, not after the rest of its DuckDB chunk (2,048 rows).
    for (const b of batches) expect(textBytes(b)).toBeLessThan(BATCH_BYTES + 1010);
    expect(batches[0]!.length).toBeLessThan(BATCH_ROWS);
  });

  it("counts a list's elements, and cuts at the row that reaches the bound after rows of NULLs", async () => {
    // 500 NULLs, then 300 lists of 20 values of 5 KB: 30 MB, in one DuckDB chunk.
    const batches = batchesOf(await readAll(request("app.tags", "id"), { ordered: true }));
    const listBytes = (b: RecordBatch) =>
      (b.columns[1]!.values as (string[] | undefined)[]).reduce((n, l) => n + (l ?? []).reduce((m, v) => m + v.length, 0), 0);
    expect(batches.reduce((n, b) => n + b.length, 0)).toBe(800);
    for (const b of batches) expect(listBytes(b)).toBeLessThan(BATCH_BYTES + 20 * 5002);
  });

  it("orders by cursor with NULLs first, text by code point", async () => {
    const words = rowsOf(await readAll(request("words", "w"), { includeNulls: true, ordered: true }));
    expect(words.map((r) => r.w)).toEqual([null, "B1", "a", "a9", "\uFFFD", "\u{1F600}"]);
    const ranged = rowsOf(
      await readAll(request("words", "w"), {
        range: { from: { kind: "text", value: "a9" }, to: { kind: "text", value: "\u{1F600}" } },
      }),
    );
    expect(ranged.map((r) => r.w).sort()).toEqual(["a9", "\uFFFD"]);
  });

  it("yields batches of tens of thousands of rows, and commit points only between distinct cursor values", async () => {
    const distinct = await readAll(request("app.events", "id"), { ordered: true });
    const batches = batchesOf(distinct);
    expect(batches.map((b) => b.length)).toEqual([BATCH_ROWS, BATCH_ROWS, ROWS - 2 * BATCH_ROWS]);
    expect(distinct.map((i) => i.kind)).toEqual(["batch", "commit-point", "batch", "commit-point", "batch"]);
    expect(distinct[1]).toMatchObject({ kind: "commit-point", bytesSinceLast: expect.any(Number) });
    expect((distinct[1] as { bytesSinceLast: number }).bytesSinceLast).toBeGreaterThan(BATCH_ROWS * 8);
    const ids = batches.flatMap((b) => [...(b.columns[0]!.values as BigInt64Array)]);
    expect(ids).toEqual(Array.from({ length: ROWS }, (_, i) => BigInt(i)));

    // `grp` is distinct up to the first batch boundary, then one value across the second one.
    const ties = await readAll(request("app.events", "grp", ["grp"]), { ordered: true });
    expect(ties.map((i) => i.kind)).toEqual(["batch", "commit-point", "batch", "batch"]);
    // `bucket` = id // 100: both boundaries (32768, 65536) fall inside a bucket, so each later
    // batch is split at its last change of bucket (ids 65500 and 69900) to offer its point.
    const buckets = await readAll(request("app.events", "bucket", ["bucket"]), { ordered: true });
    expect(buckets.map((i) => i.kind)).toEqual(["batch", "batch", "commit-point", "batch", "batch", "commit-point", "batch"]);
    expect(batchesOf(buckets).map((b) => b.length)).toEqual([BATCH_ROWS, 65_500 - BATCH_ROWS, 36, 69_900 - 65_536, 100]);
    // One value everywhere: never a commit point.
    const same = await readAll(request("app.events", "one", ["one"]), { ordered: true });
    expect(same.filter((i) => i.kind === "commit-point")).toEqual([]);
    // Unordered reads yield no commit points.
    expect((await readAll(request("app.events", "id"))).some((i) => i.kind === "commit-point")).toBe(false);
  });

  it("gives the maximum cursor and the first cursor at or after a value", async () => {
    const req = request("app.events", "at");
    const reader = await source.openTable(req, await source.describeTable(req));
    try {
      const start = parseTimestampMicros("2026-01-01T00:00:00Z")!;
      expect(await reader.maxCursor!()).toEqual({ kind: "timestamp", value: start + BigInt(ROWS - 1) * 1_000_001n });
      expect(await reader.firstCursorAtOrAfter!(ts("2026-01-01T00:00:00.5Z"))).toEqual({
        kind: "timestamp",
        value: parseTimestampMicros("2026-01-01T00:00:01.000001Z")!,
      });
      expect(await reader.firstCursorAtOrAfter!(ts("2099-01-01T00:00:00Z"))).toBeNull();
    } finally {
      await reader.close();
    }
    const words = await source.openTable(request("words", "w"), await source.describeTable(request("words", "w")));
    expect(await words.maxCursor!()).toEqual({ kind: "text", value: "\u{1F600}" });
    expect(await words.firstCursorAtOrAfter!({ kind: "text", value: "B2" })).toEqual({ kind: "text", value: "a" });
    await words.close();
  });

  it("stops when the signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(readAll(request("app.events", "id"), { signal: controller.signal })).rejects.toThrow("stop");
  });
});

it("sees one snapshot per opened table while a target writes the same file", async () => {
  const other = tempProject();
  try {
    const target = await openTarget(other.dir);
    const cols = [col("id", t("int64"))];
    const ref = { schema: "raw", name: "snap" };
    await load(target, ref, cols, [batch(cols, [{ id: 1n }])]);
    const shared = await openSource(other.dir);
    const req = request("raw.snap", "id");
    const reader = await shared.openTable(req, await shared.describeTable(req));
    await load(target, ref, cols, [batch(cols, [{ id: 2n }])]);
    const items: SourceItem[] = [];
    for await (const item of reader.read({
      range: {},
      includeNulls: false,
      ordered: false,
      signal: new AbortController().signal,
    }))
      items.push(item);
    expect(rowsOf(items)).toEqual([{ id: 1n }]);
    expect(await reader.maxCursor!()).toEqual({ kind: "integer", value: 1n });
    await reader.close();
    await shared.close();
    await target.close();
  } finally {
    other.cleanup();
  }
});

it("reports a file held by another process as SL306 (retryable), a missing file as SL304", async () => {
  const file = join(project.dir, "held.duckdb");
  const child = spawn(
    process.execPath,
    [
      "-e",
      // Held in a global: an unreferenced instance may be collected, which closes the file.
      `require("@duckdb/node-api").DuckDBInstance.create(${JSON.stringify(file)}).then((db) => { globalThis.db = db; console.log("open"); }); setInterval(() => {}, 1000);`,
    ],
    { cwd: join(import.meta.dirname, ".."), stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => d.toString().includes("open") && resolve());
      child.on("exit", (code) => reject(new Error(`holder exited with ${code}`)));
    });
    await expect(openTarget(project.dir, "held.duckdb")).rejects.toMatchObject({ code: "SL306", retryable: true });
    // The connector's open returns while the file is still opening (core reaches it beside the
    // checks): the failure comes from connect(), and from any use, and close() then has nothing to do.
    if (!connector.target) throw new Error("no target");
    const opening = await connector.target({ options: { path: "held.duckdb" }, projectDir: project.dir, schema: "raw" });
    await expect(opening.describeTable({ schema: "raw", name: "t" })).rejects.toMatchObject({ code: "SL306" });
    await expect(opening.connect?.()).rejects.toMatchObject({ code: "SL306", retryable: true });
    await opening.close();
  } finally {
    child.kill();
  }
  await expect(openSource(project.dir, "missing.duckdb")).rejects.toMatchObject({ code: "SL304" });
});
