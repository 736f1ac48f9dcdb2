import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EmulatorDatabase } from "./duckdb-executor.js";
import { plainValue } from "./plain-values.js";

describe("EmulatorDatabase", () => {
  let db: EmulatorDatabase;
  beforeEach(async () => {
    db = await EmulatorDatabase.open();
    await db.query("CREATE TABLE t (id BIGINT, k VARCHAR)");
  });
  afterEach(() => db.close());

  it("keeps a session's transaction invisible to others until commit, and drops it on rollback", async () => {
    const a = await db.session();
    await a.begin();
    await a.run("INSERT INTO t VALUES (9007199254740993, 'x')");
    expect((await db.query("SELECT count(*) FROM t")).rows[0]?.[0]).toBe(0n);
    await a.commit();
    expect((await db.query("SELECT id FROM t")).rows[0]?.[0]).toBe(9007199254740993n);
    await a.begin();
    await a.run("DELETE FROM t");
    await a.rollback();
    expect((await db.query("SELECT count(*) FROM t")).rows[0]?.[0]).toBe(1n);
    a.close();
  });

  it("aborts a second open transaction that writes a table another one claimed, until the first ends", async () => {
    const a = await db.session();
    const b = await db.session();
    await a.begin();
    await b.begin();
    a.claim("ds.t");
    expect(() => b.claim("DS.T")).toThrow(/concurrent update against table DS.T/);
    await a.commit();
    expect(() => b.claim("ds.t")).not.toThrow();
    await b.rollback();
    a.close();
    b.close();
  });

  it("rolls the transaction back when a statement in it fails, as the vendors do", async () => {
    const a = await db.session();
    await a.begin();
    await a.run("INSERT INTO t VALUES (1, 'a')");
    await expect(a.run("INSERT INTO t VALUES ('not a number', 'b')")).rejects.toThrow();
    expect(a.inTransaction).toBe(false);
    expect((await db.query("SELECT count(*) FROM t")).rows[0]?.[0]).toBe(0n);
    a.close();
  });

  it("takes the same catalog change from sessions at once as the warehouses do: one makes it, the others find it made", async () => {
    const sessions = await Promise.all(Array.from({ length: 4 }, () => db.session()));
    for (let round = 0; round < 25; round++) {
      const results = await Promise.allSettled(
        sessions.map(async (s) => {
          await s.run(`CREATE SCHEMA IF NOT EXISTS s${round}`);
          await s.run(`CREATE TABLE IF NOT EXISTS s${round}.log (seq BIGINT, body VARCHAR)`);
        }),
      );
      expect(results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    }
    for (const s of sessions) s.close();
  });

  it("reports rows changed and typed columns", async () => {
    const result = await db.query("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
    expect(result.rowsChanged).toBe(2);
    const read = await db.query(
      "SELECT id, k, TIMESTAMPTZ '2026-01-02 03:04:05.123456+00' AS at, 1.50::DECIMAL(12,2) AS d FROM t ORDER BY id",
    );
    expect(read.columns.map((c) => c.type.toString())).toEqual([
      "BIGINT",
      "VARCHAR",
      "TIMESTAMP WITH TIME ZONE",
      "DECIMAL(12,2)",
    ]);
    expect(read.rows[0]?.map(plainValue)).toEqual([
      1n,
      "a",
      { kind: "timestamp", micros: 1767323045123456n, zoned: true },
      { kind: "decimal", text: "1.50", scale: 2 },
    ]);
  });
});
