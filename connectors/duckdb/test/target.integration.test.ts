import { join } from "node:path";
import { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import {
  batchFromRows,
  type Column,
  type CursorValue,
  decodeRunLogRow,
  encodeRunLogRecord,
  isSqlloadError,
  parseDateDays,
  type RunLogRow,
  type TargetConnection,
  type TargetTableRef,
} from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { batch, col, load, openSource, openTarget, t, tempProject } from "./harness.js";

let project: ReturnType<typeof tempProject>;
let target: TargetConnection;
let n = 0;
/** A fresh schema per test, so tests share one database file and stay independent. */
const ref = (name = "t"): TargetTableRef => ({ schema: `s${++n}`, name });

beforeAll(async () => {
  project = tempProject();
  target = await openTarget(project.dir);
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

/** Every row of a table, read back through the DuckDB source, sorted by the first column. */
async function rowsOf(r: TargetTableRef): Promise<Record<string, unknown>[]> {
  const source = await openSource(project.dir);
  try {
    const request = { table: { schema: r.schema, name: r.name, key: `${r.schema}.${r.name}` }, options: {} };
    const reader = await source.openTable(request, await source.describeTable(request));
    const rows: Record<string, unknown>[] = [];
    for await (const item of reader.read({
      range: {},
      includeNulls: true,
      ordered: false,
      signal: new AbortController().signal,
    })) {
      if (item.kind === "batch") {
        for (let i = 0; i < item.batch.length; i++) {
          const row: Record<string, unknown> = {};
          item.batch.schema.forEach((c, j) => {
            const v = item.batch.columns[j]!;
            row[c.name] = v.nulls?.[i] === 1 ? null : v.values[i];
          });
          rows.push(row);
        }
      }
    }
    await reader.close();
    const key = Object.keys(rows[0] ?? {})[0] ?? "";
    return rows.sort((a, b) => (String(a[key]) < String(b[key]) ? -1 : String(a[key]) > String(b[key]) ? 1 : 0));
  } finally {
    await source.close();
  }
}

describe("maxCursor", () => {
  it("compares text by code point, not by JavaScript's UTF-16 order", async () => {
    const r = ref();
    const cols = [col("c", t("text"))];
    await load(target, r, cols, [batch(cols, [{ c: "B1" }, { c: "a9" }, { c: null }])]);
    expect(await target.maxCursor(r, "c", "text")).toEqual({ kind: "text", value: "a9" });

    const astral = ref();
    await load(target, astral, cols, [batch(cols, [{ c: "\u{1F600}" }, { c: "\uFFFD" }])]);
    expect("\u{1F600}" < "\uFFFD").toBe(true); // what JS says
    expect(await target.maxCursor(astral, "c", "text")).toEqual({ kind: "text", value: "\u{1F600}" });
  });

  it("returns integers beyond 2^53, dates and exact microseconds", async () => {
    const r = ref();
    const cols = [
      col("i", t("int64")),
      col("d", t("date")),
      col("ts", t("timestamp")),
      col("tz", t("timestamptz")),
      col("i32", t("int32")),
    ];
    const big = 2n ** 62n + 1n;
    const micros = 1_790_000_000_123_457n;
    await load(target, r, cols, [
      batch(cols, [
        { i: big, d: "2024-10-04", ts: micros, tz: micros + 1n, i32: 7 },
        { i: big - 1n, d: "1969-12-27", ts: -1n, tz: -1n, i32: -7 },
      ]),
    ]);
    expect(await target.maxCursor(r, "i", "integer")).toEqual({ kind: "integer", value: big });
    expect(await target.maxCursor(r, "i32", "integer")).toEqual({ kind: "integer", value: 7n });
    expect(await target.maxCursor(r, "d", "date")).toEqual({ kind: "date", value: parseDateDays("2024-10-04") });
    expect(await target.maxCursor(r, "ts", "timestamp")).toEqual({ kind: "timestamp", value: micros });
    expect(await target.maxCursor(r, "tz", "timestamp")).toEqual({ kind: "timestamp", value: micros + 1n });
  });

  it("is null for a missing table, a missing column and an empty table", async () => {
    const r = ref();
    expect(await target.maxCursor(r, "x", "integer")).toBeNull();
    await target.ensureTable(r, [col("x", t("int64"))], {});
    expect(await target.maxCursor(r, "x", "integer")).toBeNull();
    expect(await target.maxCursor(r, "nope", "integer")).toBeNull();
  });

  it("finds the column in whatever case the table spells it, as DuckDB's catalog matches names", async () => {
    const r = ref();
    const cols = [col("Updated_At", t("int64"))];
    await load(target, r, cols, [batch(cols, [{ Updated_At: 5n }, { Updated_At: 9n }])]);
    expect(await target.maxCursor(r, "updated_at", "integer")).toEqual({ kind: "integer", value: 9n });
  });

  it("refuses a column that cannot hold the cursor kind", async () => {
    const r = ref();
    await target.ensureTable(r, [col("x", t("text"))], {});
    await load(target, r, [col("x", t("text"))], [batch([col("x", t("text"))], [{ x: "a" }])]);
    await expect(target.maxCursor(r, "x", "timestamp")).rejects.toMatchObject({ code: "SL302" });
  });
});

describe("ensureTable and describeTable", () => {
  it("creates, adds columns, and refuses a type change without changing anything", async () => {
    const r = { schema: "raw", name: "x" };
    expect(await target.describeTable(r)).toBeNull();
    const created = await target.ensureTable(r, [col("id", t("int64")), col("amount", t("int64"), false)], {
      primaryKey: ["id"],
    });
    expect(created).toEqual([col("id", t("int64")), col("amount", t("int64"))]);

    const evolved = await target.ensureTable(r, [col("id", t("int32")), col("amount", t("int64")), col("note", t("text"))], {});
    expect(evolved.map((c) => c.name)).toEqual(["id", "amount", "note"]);
    expect(evolved[0]?.type).toEqual(t("int64")); // an int32 fits the existing BIGINT: kept as it is

    const error = await target.ensureTable(r, [col("amount", t("text")), col("later", t("date"))], {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isSqlloadError(error) && error.code).toBe("SL302");
    expect((error as Error).message).toMatch(/table raw\.x column "amount" changed type from int64 to text/);
    expect((await target.describeTable(r))?.columns.map((c) => c.name)).toEqual(["id", "amount", "note"]);
  });

  it("maps every logical type to a DuckDB type and back", async () => {
    const r = ref();
    const cols: Column[] = [
      col("b", t("boolean")),
      col("i16", t("int16")),
      col("i32", t("int32")),
      col("i64", t("int64")),
      col("f32", t("float32")),
      col("f64", t("float64")),
      col("d", { kind: "decimal", precision: 18, scale: 3 }),
      col("txt", t("text")),
      col("by", t("bytes")),
      col("u", t("uuid")),
      col("j", t("json")),
      col("dt", t("date")),
      col("tm", t("time")),
      col("ts", t("timestamp")),
      col("tz", t("timestamptz")),
      col("l", { kind: "list", element: { kind: "list", element: t("int64") } }),
    ];
    expect(await target.ensureTable(r, cols, {})).toEqual(cols);
    // Wider than DuckDB's 38 digits: kept exact as VARCHAR, so it reads back as text, and stays compatible.
    const wide = ref();
    const decimal = col("d", { kind: "decimal", precision: 50, scale: 5 });
    expect(await target.ensureTable(wide, [decimal], {})).toEqual([col("d", t("text"))]);
    expect(await target.ensureTable(wide, [decimal], {})).toEqual([col("d", t("text"))]);
  });

  it("takes narrower types as they are, widens the column for a wider decimal, and refuses what loses data", async () => {
    const r = ref();
    await target.ensureTable(
      r,
      [
        col("i", t("int64")),
        col("f", t("float64")),
        col("d", { kind: "decimal", precision: 10, scale: 2 }),
        col("ts", t("timestamptz")),
        col("s", t("text")),
      ],
      {},
    );
    await target.ensureTable(
      r,
      [
        col("i", t("int16")),
        col("f", t("float32")),
        col("d", { kind: "decimal", precision: 9, scale: 1 }),
        col("ts", t("timestamp")),
        col("s", t("uuid")),
      ],
      {},
    );
    for (const [name, type] of [
      ["d", { kind: "decimal", precision: 10, scale: 3 }],
      ["i", t("float64")],
      ["f", t("int64")],
    ] as const) {
      await expect(target.ensureTable(r, [col(name, type)], {})).rejects.toMatchObject({ code: "SL302" });
    }
    // A source decimal with more room holds every value the column has: the column widens.
    const widened = await target.ensureTable(r, [col("d", { kind: "decimal", precision: 12, scale: 2 })], {});
    expect(widened.find((c) => c.name === "d")?.type).toEqual({ kind: "decimal", precision: 12, scale: 2 });
  });
});

describe("commit units", () => {
  const cols = [col("id", t("int64")), col("c", t("int64")), col("v", t("text"))];
  const rows = (ids: readonly (number | null)[]) =>
    batch(
      cols,
      ids.map((c, i) => ({ id: BigInt(i), c: c === null ? null : BigInt(c), v: `v${c}` })),
    );
  const cursorsOf = async (r: TargetTableRef) => (await rowsOf(r)).map((row) => (row.c === null ? null : Number(row.c))).sort();

  it("deletes exactly the half-open range, with bound parameters and open bounds", async () => {
    const r = ref();
    await load(target, r, cols, [rows([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, null])]);
    const cases: [Parameters<import("@sqlload/core").CommitUnit["deleteRange"]>, (number | null)[]][] = [
      [[{ from: { kind: "integer", value: 3n }, to: { kind: "integer", value: 6n } }], [1, 2, 6, 7, 8, 9, 10, null]],
      [[{ from: { kind: "integer", value: 8n }, fromInclusive: false }], [1, 2, 6, 7, 8, null]],
      [[{ to: { kind: "integer", value: 2n } }], [2, 6, 7, 8, null]],
      [
        [{ from: { kind: "integer", value: 7n } }, { includeNulls: true }],
        [2, 6],
      ],
    ];
    for (const [args, left] of cases) {
      const unit = await target.begin(r, { strategy: "delete_insert", columns: cols, cursor: { column: "c", kind: "integer" } });
      await unit.deleteRange(...args);
      await unit.commit();
      expect(await cursorsOf(r)).toEqual(left.sort());
    }
  });

  it("deletes text ranges by code point", async () => {
    const r = ref();
    const tc = [col("c", t("text"))];
    await load(target, r, tc, [
      batch(
        tc,
        ["B1", "a9", "a", "\uFFFD", "\u{1F600}", "Z"].map((c) => ({ c })),
      ),
    ]);
    const unit = await target.begin(r, { strategy: "delete_insert", columns: tc, cursor: { column: "c", kind: "text" } });
    await unit.deleteRange({ from: { kind: "text", value: "B1" }, to: { kind: "text", value: "\u{1F600}" } });
    await unit.commit();
    expect((await rowsOf(r)).map((row) => row.c)).toEqual(["\u{1F600}"]);
  });

  it("lands data and run log together at commit, invisible before it", async () => {
    const r = ref();
    await target.ensureTable(r, cols, {});
    const unit = await target.begin(r, { strategy: "append", columns: cols, cursor: { column: "c", kind: "integer" } });
    await unit.write(rows([1, 2, 3]));
    await unit.appendRunLog(logRow("x", 3, { kind: "integer", value: 3n }));
    // The appender's rows are part of the open transaction: no other connection sees them yet.
    expect(await target.maxCursor(r, "c", "integer")).toBeNull();
    expect(await target.readRunLog(r)).toEqual([]);
    await unit.commit();
    expect(await target.maxCursor(r, "c", "integer")).toEqual({ kind: "integer", value: 3n });
    const log = await target.readRunLog(r);
    expect(log).toEqual([logRow("x", 3, { kind: "integer", value: 3n })]);
    expect(decodeRunLogRow(log[0]!, 0)).toMatchObject({ cursor: { kind: "integer", value: 3n }, rows: 3 });
  });

  it("abort leaves nothing: appended rows, deletes and the run log all vanish", async () => {
    // The appender is closed (flushed into the table) at the end of each write, before the
    // ROLLBACK: this is the proof that appender writes belong to the unit's transaction.
    const r = ref();
    await load(target, r, cols, [rows([1, 2])]);
    const unit = await target.begin(r, { strategy: "delete_insert", columns: cols, cursor: { column: "c", kind: "integer" } });
    await unit.deleteRange({});
    await unit.write(rows(Array.from({ length: 5000 }, (_, i) => i + 10)));
    await unit.appendRunLog(logRow("x", 5000));
    await unit.abort();
    await unit.abort(); // idempotent
    expect(await cursorsOf(r)).toEqual([1, 2]);
    expect(await target.readRunLog(r)).toEqual([]);
    await expect(unit.write(rows([1]))).rejects.toMatchObject({ code: "SL900" });
  });

  it("keeps run-log records per table, in the order written", async () => {
    const a = ref("a");
    const b = { schema: a.schema, name: "b" };
    for (const [r, i] of [
      [a, 1],
      [b, 2],
      [a, 3],
      [a, 4],
      [b, 5],
    ] as const) {
      await target.ensureTable(r, cols, {});
      const unit = await target.begin(r, { strategy: "append", columns: cols });
      await unit.appendRunLog(logRow(`${r.schema}.${r.name}`, i));
      await unit.commit();
    }
    expect((await target.readRunLog(a)).map((row) => row.runId)).toEqual(["run-1", "run-3", "run-4"]);
    expect((await target.readRunLog(b)).map((row) => row.runId)).toEqual(["run-2", "run-5"]);
    expect(await target.readRunLog(ref())).toEqual([]);
    expect(await target.readRunLog({ schema: "nowhere", name: "x" }, { last: 100 })).toEqual([]);
    // A load asks for the newest few: only those are read, still oldest first.
    expect((await target.readRunLog(a, { last: 2 })).map((row) => row.runId)).toEqual(["run-3", "run-4"]);
    expect((await target.readRunLog(b, { last: 5 })).map((row) => row.runId)).toEqual(["run-2", "run-5"]);
  });

  it("reads a record back exactly as written, whatever its text and its table's name hold", async () => {
    const r = ref('it\'s "odd"');
    const written: RunLogRow = {
      runId: "run 'quoted' \\ back\\slash",
      table: `${r.schema}.${r.name}`,
      at: "2026-10-12T16:00:00.123Z",
      formatVersion: 1,
      body: JSON.stringify({ event: "run", note: "line\nbreak, tab\t, quote ' \" , 🦆 and \u0000-free é" }),
    };
    await target.ensureTable(r, cols, {});
    const unit = await target.begin(r, { strategy: "append", columns: cols });
    await unit.appendRunLog(written);
    await unit.commit();
    expect(await target.readRunLog(r)).toEqual([written]);
    expect(await target.readRunLog(r, { last: 1 })).toEqual([written]);
  });

  it("writes by column name, NULL for columns the batch lacks, across many chunks", async () => {
    const r = ref();
    await target.ensureTable(r, [col("a", t("int64")), col("b", t("text")), col("c", t("float64"))], {});
    const partial = batchFromRows(
      [col("c", t("float64")), col("a", t("int64"))],
      Array.from({ length: 4100 }, (_, i) => ({ a: BigInt(i), c: i / 2 })),
    );
    const unit = await target.begin(r, { strategy: "append", columns: [] });
    await unit.write(partial);
    await unit.commit();
    const back = await rowsOf(r);
    expect(back).toHaveLength(4100);
    expect(back.find((row) => row.a === 4099n)).toEqual({ a: 4099n, b: null, c: 2049.5 });
    await expect(
      (async () => {
        const u = await target.begin(r, { strategy: "append", columns: [] });
        try {
          await u.write(batchFromRows([col("zzz", t("int64"))], [{ zzz: 1n }]));
        } finally {
          await u.abort();
        }
      })(),
    ).rejects.toMatchObject({ code: "SL305", message: expect.stringContaining('no column "zzz"') });
  });

  it("writes narrower types into wider columns", async () => {
    const r = ref();
    await target.ensureTable(
      r,
      [col("i", t("int64")), col("f", t("float64")), col("d", { kind: "decimal", precision: 12, scale: 3 }), col("s", t("text"))],
      {},
    );
    const narrow = [
      col("i", t("int16")),
      col("f", t("float32")),
      col("d", { kind: "decimal", precision: 5, scale: 1 }),
      col("s", t("uuid")),
    ];
    await target.ensureTable(r, narrow, {});
    const unit = await target.begin(r, { strategy: "append", columns: [] });
    await unit.write(batch(narrow, [{ i: -7, f: 0.5, d: "1234.5", s: "123e4567-e89b-12d3-a456-426614174000" }]));
    await unit.commit();
    expect(await rowsOf(r)).toEqual([{ i: -7n, f: 0.5, d: "1234.500", s: "123e4567-e89b-12d3-a456-426614174000" }]);
  });

  it("merges on the primary key inside the transaction", async () => {
    const r = ref();
    const mc = [col("k1", t("int64")), col("k2", t("text")), col("v", t("text"))];
    await load(target, r, mc, [
      batch(mc, [
        { k1: 1n, k2: "a", v: "old" },
        { k1: 1n, k2: "b", v: "old" },
        { k1: 2n, k2: "a", v: "old" },
      ]),
    ]);
    const unit = await target.begin(r, { strategy: "merge", columns: mc, primaryKey: ["k1", "k2"] });
    await unit.write(
      batch(mc, [
        { k1: 1n, k2: "b", v: "new" },
        { k1: 3n, k2: "a", v: "new" },
      ]),
    );
    await unit.write(batch(mc, [{ k1: 3n, k2: "a", v: "newer" }]));
    expect(await rowsOf(r)).toHaveLength(3); // not visible yet
    await unit.commit();
    const back = (await rowsOf(r)).map((row) => `${row.k1}${row.k2}=${row.v}`).sort();
    expect(back).toEqual(["1a=old", "1b=new", "2a=old", "3a=newer"]);

    // A key twice in one batch is refused (when the staged rows are merged, at the latest at
    // commit), also beside a key that is in two batches, which is an update.
    const dup = await target.begin(r, { strategy: "merge", columns: mc, primaryKey: ["k1", "k2"] });
    await dup.write(batch(mc, [{ k1: 8n, k2: "y", v: "x" }]));
    await dup.write(
      batch(mc, [
        { k1: 8n, k2: "y", v: "x2" },
        { k1: 9n, k2: "z", v: "x" },
        { k1: 9n, k2: "z", v: "y" },
      ]),
    );
    await expect(dup.commit()).rejects.toMatchObject({ code: "SL301", message: expect.stringContaining("k1 = 9, k2 = z") });
    await dup.abort();
    expect(await rowsOf(r)).toHaveLength(4);

    // The error shows a timestamp key as ISO 8601.
    const timed = ref();
    const tc = [col("at", t("timestamptz")), col("v", t("text"))];
    await load(target, timed, tc, [batch(tc, [{ at: 0n, v: "old" }])]);
    const twice = await target.begin(timed, { strategy: "merge", columns: tc, primaryKey: ["at"] });
    await twice.write(
      batch(tc, [
        { at: 1_767_225_600_000_000n, v: "a" },
        { at: 1_767_225_600_000_000n, v: "b" },
      ]),
    );
    await expect(twice.commit()).rejects.toMatchObject({
      code: "SL301",
      message: expect.stringContaining("at = 2026-01-01T00:00:00.000Z"),
    });
  });

  it("merges a unit's batches together at commit, not one by one (staged-merge.integration.test.ts)", async () => {
    // Each merge scans the whole table (it has no index): merged batch by batch, a load of 1M rows
    // scanned it 244 times.
    const r = ref();
    const mc = [col("id", t("int64")), col("v", t("int32"))];
    await load(target, r, mc, [batch(mc, [{ id: 1n, v: -1 }])]);
    const run = vi.spyOn(DuckDBConnection.prototype, "run");
    try {
      const unit = await target.begin(r, { strategy: "merge", columns: mc, primaryKey: ["id"] });
      for (let b = 1; b <= 3; b++)
        await unit.write(
          batch(mc, [
            { id: BigInt(b), v: b },
            { id: 10n, v: b },
          ]),
        );
      expect(await rowsOf(r)).toEqual([{ id: 1n, v: -1 }]);
      await unit.commit();
      expect(run.mock.calls.filter(([sql]) => /DELETE FROM [^;]* USING/.test(String(sql)))).toHaveLength(1);
    } finally {
      run.mockRestore();
    }
    expect(await rowsOf(r)).toEqual([
      { id: 1n, v: 1 },
      { id: 10n, v: 3 },
      { id: 2n, v: 2 },
      { id: 3n, v: 3 },
    ]);
  });

  it("a unit begins with one call and commits with one, its run-log records sent with COMMIT", async () => {
    // Each call is a round trip to DuckDB's thread: BEGIN and each record were calls of their own before.
    const r = ref();
    await load(target, r, cols, [rows([1, 2])]);
    const run = vi.spyOn(DuckDBConnection.prototype, "run");
    try {
      const unit = await target.begin(r, { strategy: "delete_insert", columns: cols, cursor: { column: "c", kind: "integer" } });
      // The connection starts in the attached file (duckdb-database.ts), the schema, the run log and
      // BEGIN in one call; then the table's columns as the transaction sees them.
      const begun = run.mock.calls.map(([sql]) => String(sql));
      expect(begun).toEqual([
        'USE "warehouse"',
        expect.stringMatching(/^CREATE SCHEMA IF NOT EXISTS[\s\S]*;\s*BEGIN TRANSACTION$/),
        expect.stringMatching(/LIMIT 0$/),
      ]);
      await unit.write(rows([3]));
      run.mockClear();
      await unit.appendRunLog(logRow("x", 1));
      await unit.appendRunLog(logRow("y", 2));
      expect(run).not.toHaveBeenCalled();
      await unit.commit();
      const committed = run.mock.calls.map(([sql]) => String(sql));
      expect(committed).toHaveLength(1);
      expect(committed[0]?.match(/INSERT INTO/g)).toHaveLength(2);
      expect(committed[0]).toMatch(/;\s*COMMIT$/);
    } finally {
      run.mockRestore();
    }
    expect(await cursorsOf(r)).toEqual([1, 2, 3]);
    expect(await target.readRunLog(r)).toEqual([logRow("x", 1), logRow("y", 2)]);
  });

  it("a run-log record that fails at COMMIT rolls the whole unit back", async () => {
    const own = tempProject();
    try {
      // A run log that refuses every record (as a stricter table of the same name would).
      const instance = await DuckDBInstance.create(join(own.dir, "warehouse.duckdb"));
      const setup = await instance.connect();
      await setup.run(
        `create schema raw; create table raw.t (id bigint, c bigint, v varchar); insert into raw.t values (1, 1, 'a'), (2, 2, 'b');
         create table raw._sqlload_runs (seq bigint not null, run_id varchar not null, table_name varchar not null,
           target_name varchar not null, "at" varchar not null, format_version integer not null,
           body varchar not null check (body = 'never'))`,
      );
      setup.closeSync();
      instance.closeSync();
      const strict = await openTarget(own.dir);
      try {
        const r = { schema: "raw", name: "t" };
        const unit = await strict.begin(r, {
          strategy: "delete_insert",
          columns: cols,
          cursor: { column: "c", kind: "integer" },
        });
        await unit.deleteRange({});
        await unit.write(rows([3]));
        await unit.appendRunLog(logRow("x", 1));
        await expect(unit.commit()).rejects.toMatchObject({ code: expect.stringMatching(/^SL\d+$/) });
        expect(await strict.maxCursor(r, "c", "integer")).toEqual({ kind: "integer", value: 2n });
        expect(await strict.readRunLog(r)).toEqual([]);
      } finally {
        await strict.close();
      }
    } finally {
      own.cleanup();
    }
  });

  it("replace builds a new table and swaps it in at commit; readers see the old one until then", async () => {
    const r = ref();
    await load(target, r, cols, [rows([1, 2, 3])]);
    // A build table a crashed run might have left behind.
    const leftover = { schema: r.schema, name: `${r.name}__sqlload_new` };
    await target.ensureTable(leftover, [col("junk", t("text"))], {});

    const next = [col("id", t("int64")), col("other", t("text"))];
    const unit = await target.begin(r, { strategy: "replace", columns: next });
    await unit.write(batch(next, [{ id: 10n, other: "x" }]));
    await unit.appendRunLog(logRow("x", 1));
    expect((await target.describeTable(r))?.columns.map((c) => c.name)).toEqual(["id", "c", "v"]);
    expect(await rowsOf(r)).toHaveLength(3);
    await unit.commit();
    expect(await target.describeTable(r)).toEqual({ columns: next, collations: {} });
    expect(await rowsOf(r)).toEqual([{ id: 10n, other: "x" }]);
    expect(await target.describeTable(leftover)).toBeNull();
    expect(await target.readRunLog(r)).toHaveLength(1);

    const aborted = await target.begin(r, { strategy: "replace", columns: cols });
    await aborted.write(rows([7]));
    await aborted.abort();
    expect(await rowsOf(r)).toEqual([{ id: 10n, other: "x" }]);
    expect(await target.describeTable(leftover)).toBeNull();
  });

  it("replace with no known columns takes them from the first batch, and a new table works too", async () => {
    const r = ref();
    const unit = await target.begin(r, { strategy: "replace", columns: [] });
    await unit.write(rows([5]));
    await unit.commit();
    expect(await cursorsOf(r)).toEqual([5]);
  });

  it("a unit may begin on a table that does not exist yet, and only log", async () => {
    const r = ref();
    const unit = await target.begin(r, { strategy: "delete_insert", columns: [], cursor: { column: "c", kind: "integer" } });
    await unit.deleteRange({ from: { kind: "integer", value: 1n } });
    await unit.appendRunLog(logRow("x", 0));
    await unit.commit();
    expect(await target.describeTable(r)).toBeNull();
    expect(await target.readRunLog(r)).toHaveLength(1);
  });

  it("runs units of different tables at once", async () => {
    const refs = [ref("p"), ref("q"), ref("r")].map((r, i) => ({ ...r, schema: i === 0 ? r.schema : `${r.schema}x` }));
    await Promise.all(
      refs.map(async (r, i) => {
        await target.ensureTable(r, cols, {});
        const unit = await target.begin(r, { strategy: "append", columns: cols });
        await unit.write(rows([i]));
        await unit.appendRunLog(logRow("x", i));
        await unit.commit();
      }),
    );
    for (const [i, r] of refs.entries()) {
      expect(await cursorsOf(r)).toEqual([i]);
      expect(await target.readRunLog(r)).toHaveLength(1);
    }
  });
});

describe("identifiers", () => {
  it("quotes schema, table and column names with quotes, spaces, dots, upper case and unicode", async () => {
    const r = { schema: 'Sch "q" .ünï', name: 'Tab.le "x" Ä 😀' };
    const cursor = 'Cur "s" .or';
    const cols = [col(cursor, t("int64")), col("Select", t("text")), col("spa ce.ç", t("text"))];
    await load(
      target,
      r,
      cols,
      [
        batch(cols, [
          { [cursor]: 1n, Select: "a", "spa ce.ç": "b" },
          { [cursor]: 2n, Select: "c", "spa ce.ç": null },
        ]),
      ],
      {
        strategy: "append",
      },
    );
    expect((await target.describeTable(r))?.columns).toEqual(cols);
    expect(await target.maxCursor(r, cursor, "integer")).toEqual({ kind: "integer", value: 2n });

    const unit = await target.begin(r, { strategy: "delete_insert", columns: cols, cursor: { column: cursor, kind: "integer" } });
    await unit.deleteRange({ from: { kind: "integer", value: 2n } });
    await unit.appendRunLog(logRow("odd", 1));
    await unit.commit();
    expect(await target.maxCursor(r, cursor, "integer")).toEqual({ kind: "integer", value: 1n });
    expect(await target.readRunLog(r)).toHaveLength(1);

    const merge = await target.begin(r, { strategy: "merge", columns: cols, primaryKey: [cursor] });
    await merge.write(batch(cols, [{ [cursor]: 1n, Select: "merged", "spa ce.ç": "m" }]));
    await merge.commit();
    expect(await rowsOf(r)).toEqual([{ [cursor]: 1n, Select: "merged", "spa ce.ç": "m" }]);

    const replace = await target.begin(r, { strategy: "replace", columns: cols });
    await replace.write(batch(cols, [{ [cursor]: 5n, Select: "r", "spa ce.ç": "r" }]));
    await replace.commit();
    expect(await target.maxCursor(r, cursor, "integer")).toEqual({ kind: "integer", value: 5n });
  });
});

it("declares its capabilities and no table lock", () => {
  expect(target.capabilities).toMatchObject({ commitModel: "transactional", codePointText: true, locking: false });
  expect(target.lockTable).toBeUndefined();
});
