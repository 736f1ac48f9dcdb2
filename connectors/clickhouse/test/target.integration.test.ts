import {
  type Column,
  type CursorValue,
  decodeRunLogRow,
  encodeRunLogRecord,
  isSqlloadError,
  parseDateDays,
  type RunLogRow,
  type TargetTableRef,
} from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClickHouseTarget } from "../src/clickhouse-target.js";
import { batch, col, engines, freshDatabase, load, query, t } from "./harness.js";

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

for (const engine of engines()) {
  describe(`ClickHouse target (${engine.name})`, () => {
    let target: ClickHouseTarget;
    const ref = (name = "t"): TargetTableRef => ({ schema: freshDatabase(), name });
    const rowsOf = (r: TargetTableRef, order = "1", final = "") =>
      query(target, `SELECT * FROM \`${r.schema}\`.\`${r.name}\`${final} ORDER BY ${order}`);

    beforeAll(async () => {
      target = await engine.open();
    });
    afterAll(async () => {
      await target?.close();
      engine.cleanup();
    });

    describe("maxCursor", () => {
      it("compares text by code point, not by JavaScript's UTF-16 order", async () => {
        const r = ref();
        const cols = [col("c", t("text"))];
        await load(target, r, cols, [batch(cols, [{ c: "B1" }, { c: "a9" }, { c: null }])]);
        expect(await target.maxCursor(r, "c", "text")).toEqual({ kind: "text", value: "a9" });

        const astral = ref();
        await load(target, astral, cols, [batch(cols, [{ c: "\u{1F600}" }, { c: "\uFFFD" }, { c: "\uE000" }])]);
        expect("\u{1F600}" < "\uFFFD").toBe(true); // what JavaScript says
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

      it("is null for a missing table, a missing column and an empty table, and refuses a wrong kind", async () => {
        const r = ref();
        expect(await target.maxCursor(r, "x", "integer")).toBeNull();
        const cols = [col("x", t("int64")), col("s", t("text"))];
        await load(target, r, cols, []);
        await load(target, r, cols, [batch(cols, [{ x: 1n, s: "a" }])], {
          strategy: "delete_insert",
          cursor: { column: "x", kind: "integer" },
        });
        const unit = await target.begin(r, {
          strategy: "delete_insert",
          columns: cols,
          cursor: { column: "x", kind: "integer" },
        });
        await unit.deleteRange({}, { includeNulls: true });
        await unit.commit();
        await target.publish(r);
        expect(await target.maxCursor(r, "x", "integer")).toBeNull();
        expect(await target.maxCursor(r, "nope", "integer")).toBeNull();
        await expect(target.maxCursor(r, "s", "timestamp")).rejects.toMatchObject({ code: "SL302" });
      });
    });

    describe("types", () => {
      it("writes a decimal into a column made for text as its exact text, trailing zeros kept", async () => {
        const r = ref();
        const asText = [col("id", t("int64"), false), col("amount", t("text"))];
        await load(target, r, asText, [batch(asText, [{ id: 1n, amount: "n/a" }])]);
        // The source's column became numeric(12,2); the table keeps its String column (it holds them).
        const asDecimal = [col("id", t("int64"), false), col("amount", { kind: "decimal", precision: 12, scale: 2 })];
        const ensured = await target.ensureTable(r, asDecimal, {});
        expect(ensured.find((c) => c.name === "amount")?.type).toEqual(t("text"));
        const values = ["1.50", "2.00", "-0.10", "0.00", "1234567890.12"];
        await load(target, r, ensured, [
          batch(
            asDecimal,
            values.map((amount, k) => ({ id: BigInt(k + 2), amount })),
          ),
        ]);
        const rows = await query<{ amount: string }>(target, `SELECT amount FROM \`${r.schema}\`.t WHERE id > 1 ORDER BY id`);
        expect(rows.map((row) => row.amount)).toEqual(values);
      });

      const columns: Column[] = [
        col("id", t("int64"), false),
        col("b", t("boolean")),
        col("i16", t("int16")),
        col("i32", t("int32")),
        col("i64", t("int64")),
        col("f32", t("float32")),
        col("f64", t("float64")),
        col("d9", { kind: "decimal", precision: 9, scale: 2 }),
        col("d18", { kind: "decimal", precision: 18, scale: 4 }),
        col("d38", { kind: "decimal", precision: 38, scale: 10 }),
        col("d76", { kind: "decimal", precision: 76, scale: 0 }),
        col("d90", { kind: "decimal", precision: 90, scale: 3 }),
        col("txt", t("text")),
        col("by", t("bytes")),
        col("u", t("uuid")),
        col("j", t("json")),
        col("d", t("date")),
        col("tm", t("time")),
        col("ts", t("timestamp")),
        col("tz", t("timestamptz")),
        col("li", { kind: "list", element: t("int64") }),
        col("lt", { kind: "list", element: t("text") }),
      ];

      it("maps every logical type to an exact ClickHouse type", async () => {
        const r = ref();
        await load(target, r, columns, [batch(columns, [{ id: 1n }])]);
        const types = await query<{ name: string; type: string }>(
          target,
          "SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String} ORDER BY position",
          { db: r.schema, t: r.name },
        );
        expect(Object.fromEntries(types.map((c) => [c.name, c.type]))).toEqual({
          id: "Int64",
          b: "Nullable(Bool)",
          i16: "Nullable(Int16)",
          i32: "Nullable(Int32)",
          i64: "Nullable(Int64)",
          f32: "Nullable(Float32)",
          f64: "Nullable(Float64)",
          d9: "Nullable(Decimal(9, 2))",
          d18: "Nullable(Decimal(18, 4))",
          d38: "Nullable(Decimal(38, 10))",
          d76: "Nullable(Decimal(76, 0))",
          d90: "Nullable(String)",
          txt: "Nullable(String)",
          by: "Nullable(String)",
          u: "Nullable(UUID)",
          j: "Nullable(String)",
          d: "Nullable(Date32)",
          tm: "Nullable(Time64(6))",
          ts: "Nullable(DateTime64(6, 'UTC'))",
          tz: "Nullable(DateTime64(6, 'UTC'))",
          li: "Array(Nullable(Int64))",
          lt: "Array(Nullable(String))",
        });
        const described = await target.describeTable(r);
        expect(described?.columns.map((c) => [c.name, c.type.kind, c.nullable])).toEqual([
          ["id", "int64", false],
          ["b", "boolean", true],
          ["i16", "int16", true],
          ["i32", "int32", true],
          ["i64", "int64", true],
          ["f32", "float32", true],
          ["f64", "float64", true],
          ["d9", "decimal", true],
          ["d18", "decimal", true],
          ["d38", "decimal", true],
          ["d76", "decimal", true],
          ["d90", "text", true],
          ["txt", "text", true],
          ["by", "text", true],
          ["u", "uuid", true],
          ["j", "text", true],
          ["d", "date", true],
          ["tm", "time", true],
          ["ts", "timestamptz", true],
          ["tz", "timestamptz", true],
          ["li", "list", false],
          ["lt", "list", false],
        ]);
      });

      it("round-trips values exactly, NULLs included", async () => {
        const r = ref();
        const big = 9_007_199_254_740_993n; // 2^53 + 1
        await load(target, r, columns, [
          batch(columns, [
            {
              id: 1n,
              b: true,
              i16: -32768,
              i32: 2147483647,
              i64: big,
              f32: 1.5,
              f64: 0.1,
              d9: "-1234567.89",
              d18: "12345678901234.5678",
              d38: "-1234567890123456789012345678.0123456789",
              d76: "9".repeat(76),
              d90: "123456789012345678901234567890123456789012345678901234567890123456789012345678901234567.891",
              txt: "tab\there 'quote' \\ back\nnew \u{1F600}",
              by: new Uint8Array([0, 255, 10, 13]),
              u: "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9",
              j: '{"b": 1, "a": [1.50, 2]}',
              d: "1900-01-01",
              tm: "23:59:59.999999",
              ts: "1969-12-31T23:59:59.999999Z",
              tz: "2299-12-31T23:59:59.999999Z",
              li: [1n, null, -(2n ** 63n)],
              lt: ["a", null, ""],
            },
            { id: 2n },
          ]),
        ]);
        const rows = await query(
          target,
          `SELECT *, hex(by) AS by_hex, toString(tm) AS tm_text FROM \`${r.schema}\`.t ORDER BY id`,
        );
        expect(rows[0]).toMatchObject({
          id: "1",
          b: true,
          i16: -32768,
          i32: 2147483647,
          i64: big.toString(),
          f32: 1.5,
          f64: 0.1,
          d9: "-1234567.89",
          d18: "12345678901234.5678",
          d38: "-1234567890123456789012345678.0123456789",
          d76: "9".repeat(76),
          d90: "123456789012345678901234567890123456789012345678901234567890123456789012345678901234567.891",
          txt: "tab\there 'quote' \\ back\nnew \u{1F600}",
          by_hex: "00FF0A0D",
          u: "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9",
          j: '{"b": 1, "a": [1.50, 2]}',
          d: "1900-01-01",
          tm_text: "23:59:59.999999",
          ts: "1969-12-31 23:59:59.999999",
          tz: "2299-12-31 23:59:59.999999",
          li: ["1", null, "-9223372036854775808"],
          lt: ["a", null, ""],
        });
        const nulls = rows[1] as Record<string, unknown>;
        for (const c of columns.filter((c) => c.name !== "id")) {
          expect(nulls[c.name], c.name).toEqual(c.type.kind === "list" ? [] : null);
        }
      });

      it("refuses a decimal that would lose digits, naming the column", async () => {
        const r = ref();
        const cols = [col("d", { kind: "decimal", precision: 5, scale: 2 })];
        const error = await load(target, r, cols, [batch(cols, [{ d: "1.234" }])]).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: "SL300" });
        expect(String((error as Error).message)).toContain('column "d"');
        await load(target, r, cols, [batch(cols, [{ d: "1.230" }, { d: "999.99" }])]);
        expect(await rowsOf(r)).toEqual([{ d: "1.23" }, { d: "999.99" }]);
      });

      it("writes narrower types into wider columns and refuses a type change (SL302) without altering anything", async () => {
        const r = ref();
        const wide = [col("k", t("int64")), col("v", t("float64")), col("s", t("text"))];
        await load(target, r, wide, [batch(wide, [{ k: 1n, v: 1.5, s: "x" }])]);
        const narrow = [col("k", t("int32")), col("v", t("float32")), col("s", t("uuid"))];
        await load(target, r, narrow, [batch(narrow, [{ k: 2, v: 2.5, s: "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9" }])]);
        expect(await rowsOf(r, "k")).toEqual([
          { k: "1", v: 1.5, s: "x" },
          { k: "2", v: 2.5, s: "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9" },
        ]);
        const changed = [col("k", t("text")), col("extra", t("int32"))];
        const error = await target.ensureTable(r, changed, {}).catch((e: unknown) => e);
        expect(isSqlloadError(error) && error.code).toBe("SL302");
        expect((await target.describeTable(r))?.columns.map((c) => c.name)).toEqual(["k", "v", "s"]);
      });

      it("adds new columns as Nullable and loosens NOT NULL outside the sorting key", async () => {
        const r = ref();
        const v1 = [col("id", t("int64"), false), col("name", t("text"), false)];
        await load(target, r, v1, [batch(v1, [{ id: 1n, name: "a" }])], {
          primaryKey: ["id"],
          cursor: { column: "id", kind: "integer" },
        });
        const v2 = [col("id", t("int64"), true), col("name", t("text"), true), col("score", t("float64"), false)];
        const ensured = await target.ensureTable(r, v2, { primaryKey: ["id"] });
        expect(ensured.map((c) => [c.name, c.nullable])).toEqual([
          ["id", false], // the sorting key stays as it is
          ["name", true],
          ["score", true],
        ]);
        await load(target, r, v2, [batch(v2, [{ id: 2n, name: null, score: 0.5 }])]);
        expect(await rowsOf(r, "id")).toEqual([
          { id: "1", name: "a", score: null },
          { id: "2", name: null, score: 0.5 },
        ]);
        // A NULL in a non-Nullable column fails the write (a row that does not fit) instead of becoming 0.
        const error = await load(target, r, v2, [batch(v2, [{ id: null, name: "x", score: 1 }])]).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: "SL300", retryable: false });
        expect(await rowsOf(r, "id")).toHaveLength(2);
      });
    });

    describe("deleteRange", () => {
      const cols = [col("c", t("int64")), col("v", t("text"))];
      const setup = async () => {
        const r = ref();
        await load(
          target,
          r,
          cols,
          [
            batch(
              cols,
              [10n, 19n, 20n, 29n, 30n, null].map((c) => ({ c, v: String(c) })),
            ),
          ],
          {
            cursor: { column: "c", kind: "integer" },
          },
        );
        return r;
      };
      const deleting = async (
        r: TargetTableRef,
        range: Parameters<import("@sqlload/core").CommitUnit["deleteRange"]>[0],
        includeNulls = false,
      ) => {
        const unit = await target.begin(r, {
          strategy: "delete_insert",
          columns: cols,
          cursor: { column: "c", kind: "integer" },
        });
        await unit.deleteRange(range, { includeNulls });
        await unit.commit();
        await target.publish(r);
        return (await rowsOf(r, "c")).map((row) => row.c);
      };
      const i = (v: bigint) => ({ kind: "integer" as const, value: v });

      it("deletes exactly the half-open range [from, to)", async () => {
        expect(await deleting(await setup(), { from: i(20n), to: i(30n) })).toEqual(["10", "19", "30", null]);
        expect(await deleting(await setup(), { from: i(19n), fromInclusive: false, to: i(29n) })).toEqual([
          "10",
          "19",
          "29",
          "30",
          null,
        ]);
        expect(await deleting(await setup(), { to: i(20n) })).toEqual(["20", "29", "30", null]);
        expect(await deleting(await setup(), { from: i(29n) })).toEqual(["10", "19", "20", null]);
        expect(await deleting(await setup(), {})).toEqual([null]);
        expect(await deleting(await setup(), { from: i(30n) }, true)).toEqual(["10", "19", "20", "29"]);
        expect(await deleting(await setup(), {}, true)).toEqual([]);
      });

      it("compares text bounds by code point", async () => {
        const r = ref();
        const text = [col("c", t("text"))];
        const values = ["B1", "a9", "\uFFFD", "\u{1F600}", "z"];
        await load(target, r, text, [
          batch(
            text,
            values.map((c) => ({ c })),
          ),
        ]);
        const unit = await target.begin(r, { strategy: "delete_insert", columns: text, cursor: { column: "c", kind: "text" } });
        await unit.deleteRange({ from: { kind: "text", value: "a9" }, to: { kind: "text", value: "\u{1F600}" } });
        await unit.commit();
        await target.publish(r);
        expect((await rowsOf(r, "c")).map((row) => row.c)).toEqual(["B1", "\u{1F600}"]);
      });

      it("deletes at exact timestamp and date boundaries", async () => {
        const r = ref();
        const ts = [col("at", t("timestamptz")), col("d", t("date"))];
        const at = (s: string) => ({ at: s, d: s.slice(0, 10) });
        await load(target, r, ts, [
          batch(ts, [
            at("2026-01-01T23:59:59.999999Z"),
            at("2026-01-02T00:00:00Z"),
            at("2026-01-02T00:00:00.000001Z"),
            at("2026-01-03T00:00:00Z"),
          ]),
        ]);
        const unit = await target.begin(r, {
          strategy: "delete_insert",
          columns: ts,
          cursor: { column: "at", kind: "timestamp" },
        });
        await unit.deleteRange({
          from: { kind: "timestamp", value: 1767312000000000n },
          to: { kind: "timestamp", value: 1767398400000000n },
        });
        await unit.commit();
        await target.publish(r);
        expect((await rowsOf(r, "at")).map((row) => row.at)).toEqual([
          "2026-01-01 23:59:59.999999",
          "2026-01-03 00:00:00.000000",
        ]);
        const byDate = await target.begin(r, { strategy: "delete_insert", columns: ts, cursor: { column: "d", kind: "date" } });
        await byDate.deleteRange({ from: { kind: "date", value: parseDateDays("2026-01-03") as number } });
        await byDate.commit();
        await target.publish(r);
        expect((await rowsOf(r, "at")).map((row) => row.d)).toEqual(["2026-01-01"]);
      });

      it("replaces a range by the rows written in the same unit", async () => {
        const r = await setup();
        const unit = await target.begin(r, {
          strategy: "delete_insert",
          columns: cols,
          cursor: { column: "c", kind: "integer" },
        });
        await unit.deleteRange({ from: i(19n), to: i(30n) });
        await unit.write(
          batch(cols, [
            { c: 19n, v: "new" },
            { c: 25n, v: "new" },
          ]),
        );
        await unit.commit();
        await target.publish(r);
        expect((await rowsOf(r, "c")).map((row) => [row.c, row.v])).toEqual([
          ["10", "10"],
          ["19", "new"],
          ["25", "new"],
          ["30", "30"],
          [null, "null"],
        ]);
      });
    });

    describe("merge", () => {
      const cols = [col("id", t("int64"), false), col("k2", t("text"), false), col("v", t("text")), col("at", t("int64"))];
      const merge = async (r: TargetTableRef, rows: Record<string, unknown>[]) =>
        load(target, r, cols, [batch(cols, rows)], {
          strategy: "merge",
          primaryKey: ["id", "k2"],
          cursor: { column: "at", kind: "integer" },
        });

      it("keeps one row per key, the last written, through FINAL and after merges", async () => {
        const r = ref();
        await merge(r, [
          { id: 1n, k2: "a", v: "one", at: 1n },
          { id: 2n, k2: "a", v: "two", at: 2n },
          { id: 1n, k2: "b", v: "other key", at: 3n },
        ]);
        await merge(r, [{ id: 2n, k2: "a", v: "two, again", at: 1n }]);
        await merge(r, [{ id: 1n, k2: "a", v: "one, again", at: 9n }]);
        const engineRow = await query<{ engine: string; sorting_key: string }>(
          target,
          "SELECT engine, sorting_key FROM system.tables WHERE database = {db:String} AND name = {t:String}",
          { db: r.schema, t: r.name },
        );
        expect(engineRow[0]).toEqual({ engine: "ReplacingMergeTree", sorting_key: "id, k2" });
        const expected = [
          ["1", "a", "one, again"],
          ["1", "b", "other key"],
          ["2", "a", "two, again"],
        ];
        expect((await rowsOf(r, "id, k2", " FINAL")).map((row) => [row.id, row.k2, row.v])).toEqual(expected);
        // The cursor's maximum sees one row per key: the row updated to at = 1 no longer counts at 2.
        await merge(r, [
          { id: 1n, k2: "a", v: "one, back", at: 1n },
          { id: 1n, k2: "b", v: "other key", at: 1n },
        ]);
        expect(await target.maxCursor(r, "at", "integer")).toEqual({ kind: "integer", value: 1n });
        await query(target, `OPTIMIZE TABLE \`${r.schema}\`.t FINAL`).catch(() => undefined);
        await target.session.command(`OPTIMIZE TABLE \`${r.schema}\`.t FINAL`);
        expect((await rowsOf(r, "id, k2")).map((row) => [row.id, row.k2, row.v])).toEqual([
          ["1", "a", "one, back"],
          ["1", "b", "other key"],
          ["2", "a", "two, again"],
        ]);
      });

      it("leaves one row per key that plain reads see, NULL key parts included", async () => {
        const r = ref();
        const nullable = [col("id", t("int64")), col("k2", t("text")), col("v", t("text")), col("at", t("int64"))];
        const upsert = (rows: Record<string, unknown>[]) =>
          load(target, r, nullable, [batch(nullable, rows)], { strategy: "merge", primaryKey: ["id", "k2"] });
        await upsert([
          { id: 1n, k2: null, v: "a", at: 1n },
          { id: null, k2: "x", v: "b", at: 1n },
          { id: 2n, k2: "y", v: "c", at: 1n },
        ]);
        await upsert([
          { id: 1n, k2: null, v: "a2", at: 2n },
          { id: null, k2: "x", v: "b2", at: 2n },
        ]);
        expect((await rowsOf(r, "id, k2")).map((row) => [row.id, row.k2, row.v])).toEqual([
          ["1", null, "a2"],
          ["2", "y", "c"],
          [null, "x", "b2"],
        ]);
      });

      it("converts a table made by another strategy into one that merges", async () => {
        const r = ref();
        await load(target, r, cols, [batch(cols, [{ id: 1n, k2: "a", v: "old", at: 1n }])], {
          cursor: { column: "at", kind: "integer" },
        });
        await merge(r, [{ id: 1n, k2: "a", v: "new", at: 2n }]);
        expect((await rowsOf(r, "id", " FINAL")).map((row) => row.v)).toEqual(["new"]);
      });
    });

    describe("replace", () => {
      it("builds a new table and swaps it in, keeping a merge table mergeable", async () => {
        const r = ref();
        const cols = [col("id", t("int64"), false), col("v", t("text"))];
        await load(
          target,
          r,
          cols,
          [
            batch(cols, [
              { id: 1n, v: "a" },
              { id: 2n, v: "b" },
            ]),
          ],
          { strategy: "merge", primaryKey: ["id"] },
        );
        const before = await query<{ uuid: string }>(
          target,
          "SELECT toString(uuid) AS uuid FROM system.tables WHERE database = {db:String} AND name = 't'",
          { db: r.schema },
        );
        const next = [col("id", t("int64"), false), col("w", t("int32"))];
        const unit = await target.begin(r, { strategy: "replace", columns: next, primaryKey: ["id"] });
        await unit.write(batch(next, [{ id: 3n, w: 3 }]));
        expect((await rowsOf(r, "id")).map((row) => row.id)).toEqual(["1", "2"]);
        await unit.appendRunLog(logRow(`${r.schema}.t`, 1));
        await unit.commit();
        expect((await rowsOf(r, "id")).map((row) => row.id)).toEqual(["1", "2"]);
        await target.publish(r);
        expect(await rowsOf(r, "id")).toEqual([{ id: "3", w: 3 }]);
        const after = await query<{ uuid: string; engine: string }>(
          target,
          "SELECT toString(uuid) AS uuid, engine FROM system.tables WHERE database = {db:String} AND name = 't'",
          { db: r.schema },
        );
        expect(after[0]?.uuid).not.toBe(before[0]?.uuid);
        expect(after[0]?.engine).toBe("ReplacingMergeTree");
        expect((await target.readRunLog(r)).map((row) => decodeRunLogRow(row, 0).rows)).toEqual([1]);
      });

      it("empties the table when the new read has no rows but known columns", async () => {
        const r = ref();
        const cols = [col("id", t("int64"))];
        await load(target, r, cols, [batch(cols, [{ id: 1n }])]);
        const unit = await target.begin(r, { strategy: "replace", columns: cols });
        await unit.commit();
        await target.publish(r);
        expect(await rowsOf(r)).toEqual([]);
        expect(await target.describeTable(r)).not.toBeNull();
      });
    });

    describe("run log", () => {
      it("reads as empty before its database, its table or its log exist, and fails on anything else", async () => {
        const r = ref();
        expect(await target.readRunLog(r)).toEqual([]);
        await target.ensureTable(r, [col("x", t("int64"))], {});
        expect(await target.readRunLog(r)).toEqual([]);
        // A log the user cannot read is not a log that is missing.
        await target.session.command(`CREATE TABLE \`${r.schema}\`._sqlload_runs (x UInt8) ENGINE = Memory`);
        await expect(target.readRunLog(r)).rejects.toThrow(/reading the run log of/);
      });

      it("keeps records in commit order, per table, written at publish", async () => {
        const r = ref("a");
        const other = { schema: r.schema, name: "b" };
        const cols = [col("x", t("int64"))];
        for (const [table, n] of [
          [r, 1],
          [other, 2],
          [r, 3],
        ] as const) {
          const unit = await target.begin(table, { strategy: "append", columns: cols });
          await unit.write(batch(cols, [{ x: BigInt(n) }]));
          await unit.appendRunLog(logRow(`${table.schema}.${table.name}`, n, { kind: "integer", value: BigInt(n) }));
          await unit.commit();
          expect(await target.readRunLog(table)).toHaveLength(n === 3 ? 1 : 0);
          await target.publish(table);
        }
        const log = await target.readRunLog(r);
        expect(log.map((row, i) => decodeRunLogRow(row, i).rows)).toEqual([1, 3]);
        expect(log[0]).toEqual(logRow(`${r.schema}.a`, 1, { kind: "integer", value: 1n }));
        expect((await target.readRunLog(other)).map((row, i) => decodeRunLogRow(row, i).rows)).toEqual([2]);
      });

      it("lands a log-only append at commit (as logged-state commands write it, without publish)", async () => {
        const r = ref();
        const cols = [col("x", t("int64"))];
        await load(target, r, cols, [batch(cols, [{ x: 1n }])]);
        const unit = await target.begin(r, { strategy: "append", columns: [] });
        await unit.appendRunLog(logRow(`${r.schema}.t`, 0));
        await unit.commit();
        expect(await target.readRunLog(r)).toHaveLength(1);
        // Behind staged rows it waits for their publish instead.
        const rows = await target.begin(r, { strategy: "append", columns: cols });
        await rows.write(batch(cols, [{ x: 2n }]));
        await rows.commit();
        const log = await target.begin(r, { strategy: "append", columns: [] });
        await log.appendRunLog(logRow(`${r.schema}.t`, 2));
        await log.commit();
        expect(await target.readRunLog(r)).toHaveLength(1);
        expect(await rowsOf(r)).toEqual([{ x: "1" }]);
        await target.publish(r);
        expect(await target.readRunLog(r)).toHaveLength(2);
        expect(await rowsOf(r, "x")).toEqual([{ x: "1" }, { x: "2" }]);
      });

      it("logs a unit that only logs, even for a table that does not exist yet", async () => {
        const r = ref();
        const unit = await target.begin(r, { strategy: "delete_insert", columns: [], cursor: { column: "c", kind: "integer" } });
        await unit.appendRunLog(logRow(`${r.schema}.t`, 0));
        await unit.commit();
        await target.publish(r);
        expect(await target.readRunLog(r)).toHaveLength(1);
        expect(await target.describeTable(r)).toBeNull();
      });
    });

    it("refuses a database that cannot swap tables", async () => {
      const r = ref();
      await target.session.command(`CREATE DATABASE \`${r.schema}\` ENGINE = Memory`);
      await expect(target.ensureTable(r, [col("x", t("int64"))], {})).rejects.toMatchObject({
        code: "SL305",
        message: expect.stringContaining("Memory engine"),
      });
    });

    it("quotes every identifier", async () => {
      const r = { schema: `${freshDatabase()} odd\`db`, name: 'Tab`le \\ "x" é 😀' };
      const cols = [col("Col`1", t("int64")), col('we"ird \\ name', t("text")), col("select", t("date"))];
      await load(target, r, cols, [batch(cols, [{ "Col`1": 1n, 'we"ird \\ name': "v", select: "2026-01-01" }])], {
        cursor: { column: "Col`1", kind: "integer" },
        primaryKey: ['we"ird \\ name'],
      });
      const unit = await target.begin(r, {
        strategy: "delete_insert",
        columns: cols,
        cursor: { column: "Col`1", kind: "integer" },
      });
      await unit.deleteRange({ from: { kind: "integer", value: 2n } });
      await unit.write(batch(cols, [{ "Col`1": 2n, 'we"ird \\ name': "w", select: "2026-01-02" }]));
      await unit.appendRunLog(logRow(`${r.schema}.${r.name}`, 1));
      await unit.commit();
      await target.publish(r);
      expect(await target.maxCursor(r, "Col`1", "integer")).toEqual({ kind: "integer", value: 2n });
      expect((await target.describeTable(r))?.columns.map((c) => c.name)).toEqual(["Col`1", 'we"ird \\ name', "select"]);
      expect(await target.readRunLog(r)).toHaveLength(1);
    });
  });
}
