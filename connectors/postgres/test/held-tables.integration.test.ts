import { type Column, encodeRunLogRecord, type TargetConnection, type TargetTableRef } from "@sqlload/core";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { batch, col, openTarget, rows, type Server, startServer, T, text, ts } from "./harness.js";

/**
 * While a load holds a table's lock, the target reads the table's columns and its schema's run
 * log once, not once per request: each is a round trip to a warehouse that may be far away.
 */

let server: Server;
let sql: pg.Pool;
let url: string;
let target: TargetConnection;

const COLUMNS: Column[] = [col("id", T("int64")), col("at", T("timestamptz"))];
const T0 = 1791820800000000n;

/** The statements every client of the `pg` driver sends while `body` runs. */
async function statements(body: () => Promise<void>): Promise<string[]> {
  const sent: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    sent.push(typeof first === "string" ? first : (first?.text ?? "?"));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await body();
  } finally {
    pg.Client.prototype.query = original;
  }
  return sent;
}

const describes = (sent: readonly string[]) => sent.filter((s) => s.includes("pg_attribute")).length;
const logChecks = (sent: readonly string[]) => sent.filter((s) => /^SELECT to_regclass/.test(s.trim())).length;

const record = (runId: string, table: string) =>
  encodeRunLogRecord({ runId, table, at: new Date().toISOString(), event: "run", rows: 1, cursor: ts(T0) });

/** What a no-op load asks of the target, in its order: look, log, maximum, ensure, one delete_insert unit. */
async function load(ref: TargetTableRef, columns: readonly Column[], runId: string): Promise<void> {
  await target.describeTable(ref);
  await target.readRunLog(ref, { last: 100 });
  await target.maxCursor(ref, "at", "timestamp");
  const ensured = await target.ensureTable(ref, columns, {});
  const unit = await target.begin(ref, {
    strategy: "delete_insert",
    columns: ensured,
    cursor: { column: "at", kind: "timestamp" },
  });
  await unit.deleteRange({ from: ts(T0) });
  await unit.write(batch(columns, [{ id: 1, at: T0, note: "n" }]));
  await unit.appendRunLog(record(runId, `${ref.schema}.${ref.name}`));
  expect(await unit.runLogOfRun?.(runId)).toHaveLength(1);
  await unit.commit();
}

beforeAll(async () => {
  server = await startServer();
  const db = await server.database("held");
  sql = db.sql;
  url = db.url;
  target = await openTarget(url);
});

afterAll(async () => {
  await target?.close();
  await server?.stop();
});

describe("a table held by its lock", () => {
  const ref = { schema: "raw", name: "held_events" };
  let release: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await release?.();
    release = undefined;
  });

  it("is described by the load's first look and by each unit, its run log never checked apart", async () => {
    await target.ensureTable(ref, COLUMNS, {});
    release = (await target.lockTable!(ref)).release;
    const sent = await statements(() => load(ref, COLUMNS, "run-1"));
    // The first look, which also finds the run log, serves the maximum and ensureTable; the unit
    // describes the table again inside its transaction (its columns' types decide the COPY), and
    // that describe tells it the log is there too.
    expect(describes(sent)).toBe(2);
    expect(logChecks(sent)).toBe(0);
    expect(sent.filter((s) => /^(BEGIN|COMMIT)$/.test(s.trim()))).toEqual(["BEGIN", "COMMIT"]);
    expect(await rows(sql, "SELECT id FROM raw.held_events")).toEqual([{ id: "1" }]);
  });

  it("sends a unit's rows in the column types of its own time: a type changed by hand between units", async () => {
    const typed = { schema: "raw", name: "held_retyped" };
    await target.ensureTable(typed, COLUMNS, {});
    release = (await target.lockTable!(typed)).release;
    await target.describeTable(typed);
    const write = async (id: number) => {
      const unit = await target.begin(typed, { strategy: "append", columns: COLUMNS });
      try {
        await unit.write(batch(COLUMNS, [{ id, at: T0 }]));
        await unit.commit();
      } catch (error) {
        await unit.abort();
        throw error;
      }
    };
    await write(1);
    // Eight bytes either way: sent as the bigint it was, 5 would land as the double 2.5e-323.
    await sql.query("ALTER TABLE raw.held_retyped ALTER COLUMN id TYPE double precision");
    await expect(write(5)).rejects.toThrow('column "id" of raw.held_retyped is double precision in the target');
    expect(await rows(sql, "SELECT id FROM raw.held_retyped ORDER BY id")).toEqual([{ id: 1 }]);
  });

  it("is read again after a reload's build was swapped in", async () => {
    const live = { schema: "raw", name: "held_reloaded" };
    await target.ensureTable(live, COLUMNS, {});
    release = (await target.lockTable!(live)).release;
    await target.describeTable(live);
    const build = target.reloadBuildTable!(live);
    const rebuilt = [col("id", T("int64")), col("at", T("timestamptz")), col("added", T("text"))];
    await target.ensureTable(build, rebuilt, {});
    const unit = await target.begin(build, { strategy: "append", columns: rebuilt, runLogTable: live });
    await unit.write(batch(rebuilt, [{ id: 1, at: T0, added: "x" }]));
    await unit.commit();
    // Held before the swap, the table had no "added" column: its maximum would read as none.
    await target.maxCursor(live, "at", "timestamp");
    await target.swapReloadBuild!(live, record("run-5", "raw.held_reloaded"));
    expect(await target.maxCursor(live, "added", "text")).toEqual(text("x"));
    expect((await target.ensureTable(live, rebuilt, {})).map((c) => c.name)).toEqual(["id", "at", "added"]);
  });

  it("is created, with its schema and the schema's run log, in six round trips", async () => {
    const fresh = { schema: "fresh_schema", name: "first_load" };
    const sent = await statements(async () => {
      await target.ensureTable(fresh, COLUMNS, {});
    });
    // Look; lock and schema; look again under the lock; table and log; the columns made; commit.
    expect(sent).toHaveLength(6);
    expect(sent[1]).toMatch(/^BEGIN; SELECT pg_advisory_xact_lock\(.*\); CREATE SCHEMA IF NOT EXISTS "fresh_schema"$/);
    expect(sent[3]).toMatch(/^CREATE TABLE "fresh_schema"."first_load" .*; DO \$sqlload\$/s);
    const indexes = await rows(sql, "SELECT indexname FROM pg_indexes WHERE schemaname = 'fresh_schema' ORDER BY 1");
    expect(indexes).toEqual([
      { indexname: "_sqlload_runs_pkey" },
      { indexname: "_sqlload_runs_run_id" },
      { indexname: "_sqlload_runs_table_seq" },
    ]);
    // A second table of the schema finds the log there: the same statement leaves it alone.
    await target.ensureTable({ schema: "fresh_schema", name: "second" }, COLUMNS, {});
    expect(await rows(sql, "SELECT count(*)::int AS n FROM pg_indexes WHERE schemaname = 'fresh_schema'")).toEqual([{ n: 3 }]);
  });

  it("is described at every request when not held (plan), as before", async () => {
    const sent = await statements(() => load(ref, COLUMNS, "run-2"));
    expect(describes(sent)).toBeGreaterThanOrEqual(4);
  });

  it("is unlocked before its session ends: through a pooler, ending the client's session would not end the server's", async () => {
    release = (await target.lockTable!(ref)).release;
    const releasing = release;
    release = undefined;
    expect(await statements(async () => releasing?.())).toEqual(["SELECT pg_advisory_unlock($1::int8)"]);
  });

  it("is read again after its own DDL: a column ensureTable adds is written by the next unit", async () => {
    release = (await target.lockTable!(ref)).release;
    const wider = [...COLUMNS, col("note", T("text"))];
    await load(ref, wider, "run-3");
    expect(await rows(sql, "SELECT id, note FROM raw.held_events")).toEqual([{ id: "1", note: "n" }]);
    const info = await target.describeTable(ref);
    expect(info?.columns.map((c) => c.name)).toEqual(["id", "at", "note"]);
  });

  it("is read again after a replacing unit swapped a new table in", async () => {
    const other = { schema: "raw", name: "held_replaced" };
    await target.ensureTable(other, COLUMNS, {});
    release = (await target.lockTable!(other)).release;
    await target.describeTable(other);
    const unit = await target.begin(other, { strategy: "replace", columns: [col("only", T("text"))] });
    await unit.write(batch([col("only", T("text"))], [{ only: "x" }]));
    await unit.commit();
    // The swapped-in table has one column: nothing may still see the old two.
    expect(await target.maxCursor(other, "at", "timestamp")).toBeNull();
    const ensured = await target.ensureTable(other, [col("only", T("text"))], {});
    expect(ensured.map((c) => c.name)).toEqual(["only"]);
  });

  it("makes a run log deleted by hand during the load again at the next commit (SPEC §11: deleting it is safe)", async () => {
    const lost = { schema: "lostlog", name: "events" };
    await target.ensureTable(lost, COLUMNS, {});
    release = (await target.lockTable!(lost)).release;
    await target.describeTable(lost);
    await sql.query('DROP TABLE lostlog."_sqlload_runs"');
    const ensured = await target.ensureTable(lost, COLUMNS, {});
    const unit = await target.begin(lost, { strategy: "append", columns: ensured });
    await unit.write(batch(COLUMNS, [{ id: 7, at: T0 }]));
    await unit.appendRunLog(record("run-4", "lostlog.events"));
    await unit.commit();
    expect(await rows(sql, "SELECT id FROM lostlog.events")).toEqual([{ id: "7" }]);
    expect(await rows(sql, 'SELECT run_id FROM lostlog."_sqlload_runs"')).toEqual([{ run_id: "run-4" }]);
  });
});
