import {
  type Column,
  type CursorValue,
  encodeRunLogRecord,
  isSqlloadError,
  type LogicalType,
  type TargetConnection,
  type TargetTableRef,
} from "@sqlload/core";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { batch, openTarget, rows, type Server, startServer } from "./harness.js";

/**
 * While a load holds a table's lock, the target reads the table's columns and its schema's run
 * log once, not once per request: each is a round trip to a warehouse that may be far away.
 */

let server: Server;
let sql: pg.Pool;
let url: string;
let target: TargetConnection;

const T = (kind: "int64" | "timestamptz" | "text"): LogicalType => ({ kind }) as LogicalType;
const col = (name: string, type: LogicalType): Column => ({ name, type, nullable: true });
const ts = (value: bigint): CursorValue => ({ kind: "timestamp", value });
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

  it("is described once for the whole load, its run log never checked apart", async () => {
    await target.ensureTable(ref, COLUMNS, {});
    release = (await target.lockTable!(ref)).release;
    const sent = await statements(() => load(ref, COLUMNS, "run-1"));
    // One look, which also finds the run log; every later request takes what it read.
    expect(describes(sent)).toBe(1);
    expect(logChecks(sent)).toBe(0);
    expect(sent.filter((s) => /^(BEGIN|COMMIT)$/.test(s.trim()))).toEqual(["BEGIN", "COMMIT"]);
    expect(await rows(sql, "SELECT id FROM raw.held_events")).toEqual([{ id: "1" }]);
    // Ending the lock's session releases it: no unlock statement first.
    const releasing = release;
    release = undefined;
    expect(await statements(async () => releasing?.())).toEqual([]);
  });

  it("is described at every request when not held (plan), as before", async () => {
    const sent = await statements(() => load(ref, COLUMNS, "run-2"));
    expect(describes(sent)).toBeGreaterThanOrEqual(4);
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

  it("fails a unit cleanly, committing nothing, when its run log was deleted by hand during the load", async () => {
    const lost = { schema: "lostlog", name: "events" };
    await target.ensureTable(lost, COLUMNS, {});
    release = (await target.lockTable!(lost)).release;
    await target.describeTable(lost);
    await sql.query('DROP TABLE lostlog."_sqlload_runs"');
    const ensured = await target.ensureTable(lost, COLUMNS, {});
    const unit = await target.begin(lost, { strategy: "append", columns: ensured });
    await unit.write(batch(COLUMNS, [{ id: 7, at: T0 }]));
    const error = await unit.appendRunLog(record("run-4", "lostlog.events")).then(
      () => undefined,
      (e) => e,
    );
    expect(isSqlloadError(error)).toBe(true);
    await unit.abort();
    expect(await rows(sql, "SELECT id FROM lostlog.events")).toEqual([]);
    // The next load (its lock released and taken again) finds the log gone and makes it again.
    await release?.();
    release = (await target.lockTable!(lost)).release;
    await target.describeTable(lost);
    await target.ensureTable(lost, COLUMNS, {});
    expect(await rows(sql, "SELECT to_regclass('lostlog._sqlload_runs') IS NOT NULL AS present")).toEqual([{ present: true }]);
  });
});
