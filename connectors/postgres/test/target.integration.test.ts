import {
  type Column,
  type CommitUnitOptions,
  encodeRunLogRecord,
  isSqlloadError,
  runLogOrder,
  type TargetConnection,
  type TargetTableRef,
} from "@sqlload/core";
import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { lockKey } from "../src/postgres-target.js";
import { batch, col, openTarget, rows, type Server, startServer, T, text, ts } from "./harness.js";

let server: Server;
let sql: pg.Pool;
let url: string;
let target: TargetConnection;

const EVENTS: Column[] = [col("id", T("int64"), false), col("at", T("timestamptz")), col("note", T("text"))];
const T0 = 1791820800000000n; // 2026-10-12 16:00:00 UTC

beforeAll(async () => {
  server = await startServer();
  const db = await server.database("target");
  sql = db.sql;
  url = db.url;
  target = await openTarget(url);
});

afterAll(async () => {
  await target?.close();
  await server?.stop();
});

async function codeOf(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "resolved",
    (e) => (isSqlloadError(e) ? e.code : String(e)),
  );
}

/** Loads rows through one unit and commits it. */
async function load(
  ref: TargetTableRef,
  columns: readonly Column[],
  data: readonly Record<string, unknown>[],
  options: Partial<CommitUnitOptions> & { before?: (unit: import("@sqlload/core").CommitUnit) => Promise<void> } = {},
): Promise<void> {
  const ensured = await target.ensureTable(ref, columns, { primaryKey: options.primaryKey });
  const unit = await target.begin(ref, { strategy: "append", columns: ensured, ...options });
  try {
    await options.before?.(unit);
    if (data.length > 0) await unit.write(batch(columns, data));
    await unit.commit();
  } catch (error) {
    await unit.abort();
    throw error;
  }
}

const ids = async (table: string) =>
  (await rows<{ id: string }>(sql, `SELECT id FROM ${table} ORDER BY id`)).map((r) => Number(r.id));

describe("ensureTable", () => {
  const ref = { schema: "evolve", name: "app__t" };

  it("creates the schema, the table and the run log", async () => {
    const columns = await target.ensureTable(ref, [col("id", T("int32")), col("name", T("text"))], {});
    expect(columns.map((c) => [c.name, c.type.kind])).toEqual([
      ["id", "int32"],
      ["name", "text"],
    ]);
    expect(await target.describeTable(ref)).toEqual({ columns });
    const runLog = await rows(sql, `SELECT 1 FROM pg_tables WHERE schemaname = 'evolve' AND tablename = '_sqlload_runs'`);
    expect(runLog).toHaveLength(1);
    expect(await target.describeTable({ schema: "evolve", name: "absent" })).toBeNull();
  });

  it("adds new columns and keeps wider existing types", async () => {
    const columns = await target.ensureTable(
      ref,
      [col("id", T("int16")), col("name", T("text")), col("score", T("float64"))],
      {},
    );
    expect(columns.map((c) => [c.name, c.type.kind])).toEqual([
      ["id", "int32"],
      ["name", "text"],
      ["score", "float64"],
    ]);
  });

  it("throws SL302 naming table, column, old and new type on a change that is no widening, changing nothing", async () => {
    const error = await target
      .ensureTable(ref, [col("id", T("date")), col("name", T("text")), col("extra", T("date"))], {})
      .catch((e) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL302");
    expect(error.message).toContain('column "id" of evolve.app__t is integer (int32) in the target, but the source now has date');
    const after = await target.describeTable(ref);
    expect(after?.columns.map((c) => c.name)).toEqual(["id", "name", "score"]);
  });

  it("widens a column in place when the source's type holds its values (int32 → int64)", async () => {
    const columns = await target.ensureTable(ref, [col("id", T("int64")), col("score", T("float64"))], {});
    expect(columns.find((c) => c.name === "id")?.type.kind).toBe("int64");
    const { rows } = await sql.query(
      "SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'evolve.app__t'::regclass AND attname = 'id'",
    );
    expect(rows).toEqual([{ t: "bigint" }]);
  });

  it("finds an up-to-date table so without the schema's DDL lock, which a change still waits for", async () => {
    const holder = await sql.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock($1::int8)", [lockKey({ schema: "evolve", name: "" }).toString()]);
      const columns = [col("id", T("int32")), col("name", T("text"))];
      // Every column there, in a type its values fit: answered while another run holds the lock.
      const waited = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("waited for the DDL lock")), 5000).unref(),
      );
      const found = await Promise.race([target.ensureTable(ref, columns, {}), waited]);
      expect(found.map((c) => c.name)).toEqual(["id", "name", "score"]);
      let added = false;
      const adding = target.ensureTable(ref, [...columns, col("later", T("text"))], {}).then((c) => {
        added = true;
        return c;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(added).toBe(false);
      await holder.query("COMMIT");
      expect((await adding).map((c) => c.name)).toEqual(["id", "name", "score", "later"]);
    } finally {
      holder.release();
    }
  });
});

describe("append and delete_insert", () => {
  const ref = { schema: "raw", name: "app__events" };
  const at = (micros: bigint) => micros;

  beforeEach(async () => {
    await sql.query(`DROP TABLE IF EXISTS raw.app__events`);
    await load(ref, EVENTS, [
      { id: 1, at: at(T0 - 1n), note: "before" },
      { id: 2, at: at(T0), note: "start" },
      { id: 3, at: at(T0 + 1n), note: "inside" },
      { id: 4, at: at(T0 + 2n), note: "end" },
      { id: 5, at: null, note: "null cursor" },
    ]);
  });

  it("reads the maximum exactly", async () => {
    expect(await target.maxCursor(ref, "at", "timestamp")).toEqual(ts(T0 + 2n));
    expect(await target.maxCursor(ref, "missing", "timestamp")).toBeNull();
    expect(await target.maxCursor({ schema: "raw", name: "nope" }, "at", "timestamp")).toBeNull();
  });

  it("deletes half-open ranges: from inclusive, to exclusive, NULLs only when asked", async () => {
    const unit = await target.begin(ref, {
      strategy: "delete_insert",
      columns: EVENTS,
      cursor: { column: "at", kind: "timestamp" },
    });
    await unit.deleteRange({ from: ts(T0), to: ts(T0 + 2n) });
    await unit.commit();
    expect(await ids("raw.app__events")).toEqual([1, 4, 5]);

    const again = await target.begin(ref, {
      strategy: "delete_insert",
      columns: EVENTS,
      cursor: { column: "at", kind: "timestamp" },
    });
    await again.deleteRange({ from: ts(T0 - 1n), fromInclusive: false });
    await again.commit();
    expect(await ids("raw.app__events")).toEqual([1, 5]);

    const nulls = await target.begin(ref, {
      strategy: "delete_insert",
      columns: EVENTS,
      cursor: { column: "at", kind: "timestamp" },
    });
    await nulls.deleteRange({}, { includeNulls: true });
    await nulls.commit();
    expect(await ids("raw.app__events")).toEqual([]);
  });

  it("replaces a range with delete_insert in one transaction", async () => {
    await load(ref, EVENTS, [{ id: 30, at: T0 + 1n, note: "re-read" }], {
      strategy: "delete_insert",
      cursor: { column: "at", kind: "timestamp" },
      before: (unit) => unit.deleteRange({ from: ts(T0) }),
    });
    expect(await ids("raw.app__events")).toEqual([1, 5, 30]);
  });

  it("leaves nothing behind on abort: rows, deletes and run-log records", async () => {
    const record = encodeRunLogRecord({
      runId: "r1",
      table: "raw.app__events",
      at: "2026-10-12T16:00:00.000Z",
      event: "run",
      rows: 1,
    });
    const unit = await target.begin(ref, {
      strategy: "delete_insert",
      columns: EVENTS,
      cursor: { column: "at", kind: "timestamp" },
    });
    await unit.deleteRange({});
    await unit.write(batch(EVENTS, [{ id: 99, at: T0, note: "never" }]));
    await unit.appendRunLog(record);
    await unit.write(batch(EVENTS, [{ id: 100, at: T0, note: "mid-COPY" }]));
    await unit.abort();
    expect(await ids("raw.app__events")).toEqual([1, 2, 3, 4, 5]);
    expect(await target.readRunLog(ref)).toEqual([]);
  });

  it("rolls back a unit whose write fails, and the target keeps working", async () => {
    const narrow = { schema: "raw", name: "app__narrow" };
    const columns = await target.ensureTable(narrow, [col("id", T("int64")), col("code", T("text"))], {});
    await sql.query(`ALTER TABLE raw.app__narrow ALTER COLUMN code TYPE varchar(3)`);
    const unit = await target.begin(narrow, { strategy: "append", columns });
    const error = await unit
      .write(batch(columns, [{ id: 1, code: "abc" }]))
      .then(() => unit.write(batch(columns, [{ id: 2, code: "toolong" }])))
      .then(() => unit.commit())
      .catch((e) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL300");
    await unit.abort();
    expect(await ids("raw.app__narrow")).toEqual([]);
    await load(narrow, columns, [{ id: 3, code: "ok" }]);
    expect(await ids("raw.app__narrow")).toEqual([3]);
  });

  it("writes a narrower batch type into a wider column, and fills missing columns with NULL", async () => {
    await load(ref, [col("id", T("int32"))], [{ id: 7 }]);
    const [row] = await rows(sql, `SELECT id, at, note FROM raw.app__events WHERE id = 7`);
    expect(row).toEqual({ id: "7", at: null, note: null });
  });

  it("writes the run log in the same commit and reads it back in order", async () => {
    const first = encodeRunLogRecord({
      runId: "r1",
      table: "raw.app__events",
      at: "2026-10-12T16:00:00.123Z",
      event: "run",
      rows: 1,
      cursor: ts(T0),
      state: { token: "a\u0000b" },
    });
    const second = { ...first, runId: "r2", at: "2026-10-12T16:00:01.000Z" };
    await load(ref, EVENTS, [{ id: 10, at: T0, note: "x" }], { before: (unit) => unit.appendRunLog(first) });
    await load(ref, EVENTS, [], { before: (unit) => unit.appendRunLog(second) });
    expect(await target.readRunLog(ref)).toEqual([first, second]);
    // A load asks for the newest few: only those are read, still oldest first.
    expect(await target.readRunLog(ref, { last: 1 })).toEqual([second]);
    expect(await target.readRunLog(ref, { last: 3 })).toEqual([first, second]);
    expect(await target.readRunLog({ schema: "raw", name: "app__other" })).toEqual([]);
    expect(await target.readRunLog({ schema: "nowhere", name: "x" })).toEqual([]);
  });
});

describe("a run log shared by many tables", () => {
  const indexes = (schema: string) =>
    rows<{ indexname: string; indexdef: string }>(
      sql,
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = '_sqlload_runs' ORDER BY indexname`,
      [schema],
    );
  /** The plan Postgres runs `query` with, the log made large and analyzed first. */
  const plan = async (query: string, values: unknown[]) =>
    JSON.stringify((await rows(sql, `EXPLAIN (FORMAT JSON) ${query}`, values))[0]);

  it("is created with indexes for one table's newest records and one run's records, which the reads use", async () => {
    const ref = { schema: "shared_log", name: "app__rare" };
    await target.ensureTable(ref, EVENTS, {});
    expect((await indexes("shared_log")).map((i) => i.indexdef.replace(/^.* USING /, ""))).toEqual([
      "btree (seq)",
      "btree (run_id)",
      "btree (table_name, seq)",
    ]);
    // A table loaded rarely, in a log of 50,000 records of its schema's other tables.
    await sql.query(
      `INSERT INTO shared_log._sqlload_runs (run_id, table_name, at, format_version, body)
       SELECT 'r' || (g / 10), 'shared_log.app__busy' || (g % 10), now(), 1, '{}' FROM generate_series(1, 50000) g`,
    );
    await sql.query("ANALYZE shared_log._sqlload_runs");
    // Ended as every read of the newest records is (runLogOrder, which readRunLog uses).
    const newest = await plan(
      `SELECT body FROM shared_log._sqlload_runs WHERE table_name = $1 ${runLogOrder("seq", { last: 100 })}`,
      ["shared_log.app__rare"],
    );
    expect(newest).toContain('"Index Name":"_sqlload_runs_table_seq"');
    const ofRun = await plan(`SELECT body FROM shared_log._sqlload_runs WHERE table_name = $1 AND run_id = $2 ORDER BY seq`, [
      "shared_log.app__rare",
      "r7",
    ]);
    expect(ofRun).toMatch(/"Index Name":"_sqlload_runs_(run_id|table_seq)"/);
    expect(ofRun).not.toContain('"Node Type":"Seq Scan"');
  });

  it("creates a log deleted by hand again, indexes included, when a table is next ensured (SPEC §11: deleting it is safe)", async () => {
    const ref = { schema: "deleted_log", name: "app__events" };
    await target.ensureTable(ref, EVENTS, {});
    await sql.query("DROP TABLE deleted_log._sqlload_runs");
    expect(await target.readRunLog(ref, { last: 100 })).toEqual([]);
    await target.ensureTable(ref, EVENTS, {});
    expect((await indexes("deleted_log")).map((i) => i.indexname)).toEqual([
      "_sqlload_runs_pkey",
      "_sqlload_runs_run_id",
      "_sqlload_runs_table_seq",
    ]);
  });

  it("adds no index to a log created without them: CREATE INDEX there would wait on every load writing to it", async () => {
    await sql.query(`CREATE SCHEMA older_log; CREATE TABLE older_log._sqlload_runs (
      seq bigserial PRIMARY KEY, run_id text NOT NULL, table_name text NOT NULL, at timestamptz NOT NULL,
      format_version integer NOT NULL, body text NOT NULL)`);
    const ref = { schema: "older_log", name: "app__events" };
    const record = encodeRunLogRecord({
      runId: "r1",
      table: "older_log.app__events",
      at: "2026-10-12T16:00:00.000Z",
      event: "run",
      rows: 1,
    });
    await load(ref, EVENTS, [{ id: 1, at: T0, note: "x" }], { before: (unit) => unit.appendRunLog(record) });
    expect(await target.readRunLog(ref, { last: 100 })).toEqual([record]);
    expect((await indexes("older_log")).map((i) => i.indexname)).toEqual(["_sqlload_runs_pkey"]);
  });
});

describe("a table dropped or emptied by hand", () => {
  it("is followed: no maximum, no description, created again", async () => {
    const ref = { schema: "raw", name: "app__gone" };
    await load(ref, EVENTS, [{ id: 1, at: T0, note: "x" }]);
    expect(await target.maxCursor(ref, "at", "timestamp")).toEqual(ts(T0));
    await sql.query("TRUNCATE raw.app__gone");
    expect(await target.maxCursor(ref, "at", "timestamp")).toBeNull();
    await sql.query("DROP TABLE raw.app__gone");
    expect(await target.maxCursor(ref, "at", "timestamp")).toBeNull();
    expect(await target.describeTable(ref)).toBeNull();
    await load(ref, EVENTS, [{ id: 2, at: T0 + 5n, note: "y" }]);
    expect(await target.maxCursor(ref, "at", "timestamp")).toEqual(ts(T0 + 5n));
  });
});

describe("text cursors on the target compare by code point", () => {
  const ref = { schema: "raw", name: "app__words" };

  it("takes the maximum and deletes ranges by code point, whatever the column's collation", async () => {
    await sql.query(`CREATE TABLE raw.app__words (id int8, word text COLLATE "en-US-x-icu")`);
    const columns = [col("id", T("int64")), col("word", T("text"))];
    const words = ["B1", "a9", "\uFFFD", "\u{1F600}", "b", "Z"];
    await load(
      ref,
      columns,
      words.map((word, i) => ({ id: i, word })),
    );
    expect(await target.maxCursor(ref, "word", "text")).toEqual(text("\u{1F600}"));
    const unit = await target.begin(ref, { strategy: "delete_insert", columns, cursor: { column: "word", kind: "text" } });
    await unit.deleteRange({ from: text("B1"), to: text("a9") });
    await unit.commit();
    const left = (await rows<{ word: string }>(sql, `SELECT word FROM raw.app__words`)).map((r) => r.word).sort();
    expect(left).toEqual(["a9", "b", "\u{1F600}", "\uFFFD"].sort());
  });
});

describe("merge", () => {
  const ref = { schema: "raw", name: "app__customers" };
  const columns = [col("id", T("int64")), col("name", T("text")), col("tier", T("int32"))];

  it("upserts on the primary key through a unique index it creates", async () => {
    await load(ref, columns, [
      { id: 1, name: "one", tier: 1 },
      { id: 2, name: "two", tier: 1 },
    ]);
    await load(
      ref,
      columns,
      [
        { id: 2, name: "TWO", tier: 2 },
        { id: 3, name: "three", tier: 3 },
      ],
      { strategy: "merge", primaryKey: ["id"] },
    );
    const got = await rows(sql, `SELECT id, name, tier FROM raw.app__customers ORDER BY id`);
    expect(got).toEqual([
      { id: "1", name: "one", tier: 1 },
      { id: "2", name: "TWO", tier: 2 },
      { id: "3", name: "three", tier: 3 },
    ]);
    const indexes = await rows(sql, `SELECT indexname FROM pg_indexes WHERE schemaname = 'raw' AND tablename = 'app__customers'`);
    expect(indexes).toEqual([{ indexname: "app__customers__sqlload_pk" }]);
    // A second merge reuses the index.
    await load(ref, columns, [{ id: 1, name: "ONE", tier: 9 }], { strategy: "merge", primaryKey: ["id"] });
    expect(await rows(sql, `SELECT name FROM raw.app__customers WHERE id = 1`)).toEqual([{ name: "ONE" }]);
  });

  it("refuses a key twice within one commit (SL301) and leaves the table as it was", async () => {
    const error = await load(
      ref,
      columns,
      [
        { id: 5, name: "a", tier: 1 },
        { id: 5, name: "b", tier: 1 },
      ],
      { strategy: "merge", primaryKey: ["id"] },
    ).catch((e) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL301");
    expect(await ids("raw.app__customers")).toEqual([1, 2, 3]);
  });

  it("refuses existing duplicates when it creates the index (SL301)", async () => {
    const dup = { schema: "raw", name: "app__dups" };
    await load(dup, columns, [
      { id: 1, name: "a", tier: 1 },
      { id: 1, name: "b", tier: 1 },
    ]);
    const error = await load(dup, columns, [{ id: 2, name: "c", tier: 1 }], { strategy: "merge", primaryKey: ["id"] }).catch(
      (e) => e,
    );
    expect(isSqlloadError(error) && error.code).toBe("SL301");
  });

  it("merges on a composite key of odd names", async () => {
    const odd = { schema: 'ra"w', name: 'app__Odd "K" ü' };
    const oddColumns = [col('K "1"', T("text")), col("k 2", T("int32")), col("välue", T("text"))];
    await load(odd, oddColumns, [{ 'K "1"': "a", "k 2": 1, välue: "x" }], { strategy: "merge", primaryKey: ['K "1"', "k 2"] });
    await load(
      odd,
      oddColumns,
      [
        { 'K "1"': "a", "k 2": 1, välue: "y" },
        { 'K "1"': "a", "k 2": 2, välue: "z" },
      ],
      { strategy: "merge", primaryKey: ["k 2", 'K "1"'] },
    );
    const got = await rows(sql, `SELECT * FROM "ra""w"."app__Odd ""K"" ü" ORDER BY "k 2"`);
    expect(got).toEqual([
      { 'K "1"': "a", "k 2": 1, välue: "y" },
      { 'K "1"': "a", "k 2": 2, välue: "z" },
    ]);
  });
});

describe("replace", () => {
  const ref = { schema: "raw", name: "app__snapshot" };
  const columns = [col("id", T("int64")), col("v", T("text"))];

  it("builds a new table and swaps it in at commit", async () => {
    await load(ref, columns, [{ id: 1, v: "old" }]);
    const unit = await target.begin(ref, { strategy: "replace", columns: [...columns, col("added", T("date"))] });
    await unit.write(batch(columns, [{ id: 2, v: "new" }]));
    // Until the commit, readers see the old table.
    expect(await ids("raw.app__snapshot")).toEqual([1]);
    await unit.commit();
    expect(await ids("raw.app__snapshot")).toEqual([2]);
    const tables = await rows(
      sql,
      `SELECT tablename FROM pg_tables WHERE schemaname = 'raw' AND tablename LIKE 'app__snapshot%'`,
    );
    expect(tables).toEqual([{ tablename: "app__snapshot" }]);
    expect((await target.describeTable(ref))?.columns.map((c) => c.name)).toEqual(["id", "v", "added"]);
  });

  it("drops a leftover new table at begin, and an abort keeps the old table", async () => {
    await sql.query(`CREATE TABLE raw.app__snapshot__sqlload_new (junk int)`);
    const unit = await target.begin(ref, { strategy: "replace", columns });
    await unit.write(batch(columns, [{ id: 3, v: "never" }]));
    await unit.abort();
    expect(await ids("raw.app__snapshot")).toEqual([2]);
    const tables = await rows(
      sql,
      `SELECT tablename FROM pg_tables WHERE schemaname = 'raw' AND tablename LIKE 'app__snapshot%'`,
    );
    expect(tables).toEqual([{ tablename: "app__snapshot" }, { tablename: "app__snapshot__sqlload_new" }]);
    await load(ref, columns, [{ id: 4, v: "x" }], { strategy: "replace" });
    expect(await ids("raw.app__snapshot")).toEqual([4]);
  });

  it("loads tables of a new schema at once (--concurrency), the schema and its run log made once", async () => {
    // Each unit is one transaction; one that made the schema inside it held its name until it
    // committed, and the others then failed on Postgres' unique index of schema names.
    const schema = "fresh_concurrent";
    const loads = [0, 1, 2, 3].map(async (k) => {
      const table = { schema, name: `app__t${k}` };
      const unit = await target.begin(table, { strategy: "replace", columns });
      await unit.write(batch(columns, [{ id: k, v: "x" }]));
      await unit.appendRunLog(
        encodeRunLogRecord({
          runId: "r",
          table: `${schema}.app__t${k}`,
          at: new Date().toISOString(),
          event: "run",
          rows: 1,
          cursor: null,
        }),
      );
      await unit.commit();
    });
    const outcomes = await Promise.allSettled(loads);
    expect(outcomes.map((o) => (o.status === "rejected" ? String(o.reason) : "loaded"))).toEqual(Array(4).fill("loaded"));
    for (let k = 0; k < 4; k++) expect(await ids(`${schema}.app__t${k}`)).toEqual([k]);
    expect(await rows(sql, `SELECT count(*)::int AS n FROM ${schema}._sqlload_runs`)).toEqual([{ n: 4 }]);
  });

  it("creates the table when it did not exist, and keeps long names within 63 bytes", async () => {
    const long = { schema: "raw", name: `app__${"é".repeat(28)}` };
    const unit = await target.begin(long, { strategy: "replace", columns });
    await unit.write(batch(columns, [{ id: 1, v: "a" }]));
    await unit.commit();
    expect((await target.describeTable(long))?.columns).toHaveLength(2);
  });
});

describe("locks", () => {
  const ref = { schema: "raw", name: "app__locked" };

  it("refuses a second run with a retryable SL306 while the first holds the table", async () => {
    const held = await target.lockTable!(ref);
    const other = await openTarget(url);
    const error = await other.lockTable!(ref).catch((e) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL306");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("raw.app__locked is locked by another sqlload run (backend pid");
    // Another table is free.
    await (await other.lockTable!({ schema: "raw", name: "app__free" })).release();
    await held.release();
    const next = await other.lockTable!(ref);
    await next.release();
    await other.close();
  });

  it("has released a lock once release() resolves: another run takes it at once, every time", async () => {
    const other = await openTarget(url);
    try {
      for (let i = 0; i < 20; i++) {
        const held = await target.lockTable!(ref);
        await held.release();
        await (await other.lockTable!(ref)).release();
      }
    } finally {
      await other.close();
    }
  });

  it("releases a lock when its connection closes", async () => {
    const other = await openTarget(url);
    await other.lockTable!(ref);
    await other.close();
    const again = await target.lockTable!(ref);
    await again.release();
  });
});

describe("failures", () => {
  it("reports a refused target connection as SL308, retryable, with the password redacted", async () => {
    const dead = await openTarget("postgresql://loader:hunter2@127.0.0.1:1/warehouse");
    const error = await dead.describeTable({ schema: "raw", name: "x" }).catch((e) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL308");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("postgresql://loader:***@127.0.0.1:1/warehouse");
    expect(error.message).not.toContain("hunter2");
    expect(await codeOf(dead.lockTable!({ schema: "raw", name: "x" }))).toBe("SL308");
    await dead.close();
  });

  it("reports a login the server refuses (a database that is not there) as SL309, never retried", async () => {
    const missing = new URL(url);
    missing.pathname = "/no_such_database";
    const refused = await openTarget(missing.toString());
    const error = await refused.describeTable({ schema: "raw", name: "x" }).catch((e) => e);
    expect(isSqlloadError(error) && [error.code, error.retryable]).toEqual(["SL309", false]);
    expect(error.message).toMatch(/no_such_database.*\[3D000\]/);
    await refused.close();
  });

  it("begins a log-only unit on a missing table, which refuses rows (SL305)", async () => {
    const unit = await target.begin({ schema: "raw", name: "nope" }, { strategy: "append", columns: EVENTS });
    try {
      expect(await codeOf(unit.write(batch(EVENTS, [{ id: 1n }])))).toBe("SL305");
    } finally {
      await unit.abort();
    }
  });
});

describe("plan notes", () => {
  const cursor = { column: "updated_at", kind: "timestamp" as const };

  it("names the index that makes a large table's maximum and deletes lookups, and is silent once it exists", async () => {
    // About 80 MB, as the planner's statistics count it once vacuumed.
    await sql.query(`CREATE SCHEMA IF NOT EXISTS notes;
      CREATE TABLE notes.big AS SELECT g::int8 AS id, timestamptz '2026-01-01' + g * interval '1 second' AS updated_at, repeat('x', 40) AS pad
      FROM generate_series(1, 900000) g;`);
    await sql.query("VACUUM ANALYZE notes.big");
    const ref = { schema: "notes", name: "big" };
    const [note] = await target.planNotes!(ref, { cursor, strategy: "delete_insert" });
    expect(note).toMatch(
      /^no index on notes\.big leads with "updated_at", so each run's maximum and the delete of the range it reads scan the table \(about \d+ MB\); to read through an index instead, create: CREATE INDEX ON "notes"\."big" \("updated_at"\);$/,
    );
    const [appending] = await target.planNotes!(ref, { cursor, strategy: "append" });
    expect(appending).toContain("so each run's maximum scans the table");
    // A rebuild reads no maximum.
    expect(await target.planNotes!(ref, { cursor, strategy: "replace" })).toEqual([]);
    expect(await target.planNotes!(ref, { cursor, strategy: "delete_insert", rebuild: true })).toEqual([]);
    // A hash index cannot give a maximum; a btree led by the cursor can.
    await sql.query("CREATE INDEX big_hash ON notes.big USING hash (updated_at)");
    expect(await target.planNotes!(ref, { cursor, strategy: "delete_insert" })).toHaveLength(1);
    await sql.query("CREATE INDEX ON notes.big (updated_at, id)");
    expect(await target.planNotes!(ref, { cursor, strategy: "delete_insert" })).toEqual([]);
    const rows = await sql.query("EXPLAIN SELECT max(updated_at) FROM notes.big");
    expect(rows.rows.map((r) => r["QUERY PLAN"]).join("\n")).toContain("Index Only Scan Backward");

    // A text cursor in a linguistic collation compares in COLLATE "C": an index in its own order does not serve it.
    await sql.query(`ALTER TABLE notes.big ADD COLUMN code text COLLATE "und-x-icu"; CREATE INDEX big_code ON notes.big (code);`);
    const text = { column: "code", kind: "text" as const };
    const [linguistic] = await target.planNotes!(ref, { cursor: text, strategy: "delete_insert" });
    expect(linguistic).toMatch(
      /^index "big_code" on "code" is not in code point order \(COLLATE "C"\), which text cursors compare by, so /,
    );
    expect(linguistic).toMatch(/create: CREATE INDEX ON "notes"\."big" \("code" COLLATE "C"\);$/);
    await sql.query(`CREATE INDEX ON notes.big (code COLLATE "C")`);
    expect(await target.planNotes!(ref, { cursor: text, strategy: "delete_insert" })).toEqual([]);
    // The index the note printed serves the maximum the target reads.
    const max = await sql.query(`EXPLAIN SELECT max(code COLLATE "C") FROM notes.big`);
    expect(max.rows.map((r) => r["QUERY PLAN"]).join("\n")).toContain("Index Only Scan Backward");
  });

  it("says nothing of a small table, a missing one, or a table without the cursor", async () => {
    const ref = { schema: "notes", name: "small" };
    await sql.query(`CREATE SCHEMA IF NOT EXISTS notes;
      CREATE TABLE notes.small AS SELECT g::int8 AS id, now() AS updated_at FROM generate_series(1, 1000) g; ANALYZE notes.small;`);
    expect(await target.planNotes!(ref, { cursor, strategy: "delete_insert" })).toEqual([]);
    expect(await target.planNotes!({ schema: "notes", name: "nosuch" }, { cursor, strategy: "delete_insert" })).toEqual([]);
    expect(await target.planNotes!(ref, { cursor: { column: "other", kind: "timestamp" }, strategy: "delete_insert" })).toEqual(
      [],
    );
  });
});
