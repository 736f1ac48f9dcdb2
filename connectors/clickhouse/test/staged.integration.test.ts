import { hostname } from "node:os";
import { decodeRunLogRow, type TargetTableRef } from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auxName } from "../src/clickhouse-names.js";
import type { ClickHouseSession } from "../src/clickhouse-session.js";
import { ClickHouseTarget } from "../src/clickhouse-target.js";
import {
  at,
  auxTables,
  batch,
  col,
  deleteInsertWindow,
  engines,
  failing,
  freshDatabase,
  load,
  query,
  rowsAt,
  t,
  windowColumns,
  windowCursor,
} from "./harness.js";

const cols = windowColumns;
const cursor = windowCursor;
const i = at;

for (const engine of engines()) {
  describe(`staged commits (${engine.name})`, () => {
    let target: ClickHouseTarget;
    let session: ClickHouseSession;
    const ref = (): TargetTableRef => ({ schema: freshDatabase(), name: "events" });
    const contents = async (r: TargetTableRef) =>
      (await query<{ id: string; v: string }>(target, `SELECT id, v FROM \`${r.schema}\`.events ORDER BY id`)).map(
        (row) => `${row.id}:${row.v}`,
      );
    const exists = async (r: TargetTableRef) => (await target.describeTable(r)) !== null;

    const window = deleteInsertWindow;

    beforeAll(async () => {
      target = await engine.open();
      session = await engine.session();
    });
    afterAll(async () => {
      await target?.close();
      await session?.release();
      engine.cleanup();
    });

    it("shows nothing before publish, then every window at once", async () => {
      const r = ref();
      await target.ensureTable(r, cols, {});
      for (let k = 0; k < 5; k++) await window(target, r, k * 10, k * 10 + 10, "first");
      // ensureTable made the table, empty; the staged windows are nowhere to be seen.
      expect(await exists(r)).toBe(true);
      expect(await contents(r)).toEqual([]);
      expect(await target.readRunLog(r)).toEqual([]);
      await target.publish(r);
      expect(await contents(r)).toHaveLength(50);
      expect((await target.readRunLog(r)).map((row, k) => decodeRunLogRow(row, k).windowEnd)).toEqual(
        [10, 20, 30, 40, 50].map(i),
      );

      // A second run re-reads [20, 40) and a late window: the old rows stay visible until its publish.
      await target.ensureTable(r, cols, {});
      await window(target, r, 20, 30, "second");
      await window(target, r, 30, 40, "second");
      await window(target, r, 60, 61, "second");
      expect((await contents(r)).filter((x) => x.endsWith("second"))).toEqual([]);
      await target.publish(r);
      const after = await contents(r);
      expect(after).toHaveLength(51);
      expect(after.filter((x) => x.endsWith("second"))).toHaveLength(21);
      expect(await auxTables(target, r.schema)).toEqual([]);
    });

    it("applies a later window's delete to rows staged by an earlier unit", async () => {
      const r = ref();
      await load(target, r, cols, [batch(cols, rowsAt(0, 5, "base"))], { cursor });
      await window(target, r, 3, 10, "one");
      // An overlapping read (a lookback): its delete must remove rows of the unit before it too.
      const unit = await target.begin(r, { strategy: "delete_insert", columns: cols, cursor });
      await unit.deleteRange({ from: i(8) });
      await unit.write(batch(cols, rowsAt(8, 9, "two")));
      await unit.commit();
      await target.publish(r);
      expect(await contents(r)).toEqual(["0:base", "1:base", "2:base", "3:one", "4:one", "5:one", "6:one", "7:one", "8:two"]);
    });

    it("drops an aborted unit alone, keeping the units committed before it", async () => {
      const r = ref();
      await load(target, r, cols, [batch(cols, rowsAt(0, 3, "base"))], { cursor });
      await window(target, r, 10, 12, "kept");
      const unit = await target.begin(r, { strategy: "delete_insert", columns: cols, cursor });
      await unit.deleteRange({});
      await unit.write(batch(cols, rowsAt(20, 22, "aborted")));
      await unit.abort();
      expect(await contents(r)).toEqual(["0:base", "1:base", "2:base"]);
      await target.publish(r);
      expect(await contents(r)).toEqual(["0:base", "1:base", "2:base", "10:kept", "11:kept"]);
      expect(await auxTables(target, r.schema)).toEqual([]);
    });

    it("leaves the table and its log unchanged when a run stops before publish", async () => {
      const r = ref();
      await load(target, r, cols, [batch(cols, rowsAt(0, 3, "base"))], { cursor });
      const lock = await target.lockTable(r);
      await window(target, r, 0, 10, "stopped");
      await window(target, r, 10, 20, "stopped");
      expect((await auxTables(target, r.schema)).some((name) => name.startsWith("_sqlload_stage__"))).toBe(true);
      await lock.release(); // the run failed or was interrupted: no publish
      expect(await contents(r)).toEqual(["0:base", "1:base", "2:base"]);
      expect(await target.readRunLog(r)).toEqual([]);
      expect(await auxTables(target, r.schema)).toEqual([]);
      // Nothing of the stopped run can be published later.
      await target.publish(r);
      expect(await contents(r)).toEqual(["0:base", "1:base", "2:base"]);
    });

    it("drops a crashed run's staging tables at the start of the next run", async () => {
      const r = ref();
      await load(target, r, cols, [batch(cols, rowsAt(0, 3, "base"))], { cursor });
      const crashed = new ClickHouseTarget(session);
      await crashed.lockTable(r);
      await window(crashed, r, 0, 10, "crashed");
      const partial = await crashed.begin(r, { strategy: "delete_insert", columns: cols, cursor });
      await partial.write(batch(cols, rowsAt(10, 12, "crashed")));
      const left = await auxTables(target, r.schema);
      expect(left.filter((n) => n.startsWith("_sqlload_stage__events__"))).toHaveLength(2);
      // The crashed run never closes. The next run's lock takes over its lock (same process, so
      // only a stale heartbeat would let it: simulate the crash by aging the lock)...
      await query(target, "SELECT 1");
      const lockName = left.find((n) => n.startsWith("_sqlload_lock__")) as string;
      await target.session.command(
        `ALTER TABLE \`${r.schema}\`.\`${lockName}\` MODIFY COMMENT '${JSON.stringify({ token: "dead", host: hostname(), pid: 2 ** 22 + 7, beat: 0, since: 0 })}'`,
      );
      const next = await target.lockTable(r);
      const remaining = await auxTables(target, r.schema);
      expect(remaining.filter((n) => !n.startsWith("_sqlload_lock__"))).toEqual([]);
      expect(remaining).toHaveLength(1);
      expect(await contents(r)).toEqual(["0:base", "1:base", "2:base"]);
      await window(target, r, 0, 5, "next");
      await target.publish(r);
      await next.release();
      expect(await contents(r)).toEqual(["0:next", "1:next", "2:next", "3:next", "4:next"]);
      expect(await auxTables(target, r.schema)).toEqual([]);
    });

    it("refuses a table another run holds (SL306), and takes over one whose process is gone", async () => {
      const r = ref();
      await target.ensureTable(r, cols, {});
      const lock = await target.lockTable(r);
      const other = await engine.open();
      try {
        await expect(other.lockTable(r)).rejects.toMatchObject({ code: "SL306", retryable: true });
        await lock.release();
        const mine = await other.lockTable(r);
        await mine.release();
        // A lock left by a process of this host that no longer exists.
        const dead = { token: "dead", host: hostname(), pid: 2 ** 22 + 11, beat: Date.now(), since: Date.now() };
        await target.session.command(
          `CREATE TABLE \`${r.schema}\`.\`${auxName("lock", r.name, "000005")}\` (held UInt8) ENGINE = Memory COMMENT '${JSON.stringify(dead)}'`,
        );
        const taken = await other.lockTable(r);
        expect((await auxTables(target, r.schema)).filter((n) => n.startsWith("_sqlload_lock__"))).toEqual([
          auxName("lock", r.name, "000006"),
        ]);
        await taken.release();
        expect(await auxTables(target, r.schema)).toEqual([]);
      } finally {
        await other.close();
      }
    });

    describe("a crash during publish", () => {
      /** A run as the runner drives it: lock, stage two windows, publish, release (which discards what is unpublished). */
      const stageAndPublish = async (s: ClickHouseSession, r: TargetTableRef) => {
        const tg = new ClickHouseTarget(s);
        const lock = await tg.lockTable(r);
        try {
          await tg.ensureTable(r, cols, {});
          await window(tg, r, 0, 5, "new");
          await window(tg, r, 5, 10, "new");
          await tg.publish(r);
        } finally {
          await lock.release();
        }
      };

      it("before the decision: the table stays as it was, and the next run drops the leftovers", async () => {
        const r = ref();
        await load(target, r, cols, [batch(cols, rowsAt(0, 3, "old"))], { cursor });
        await expect(stageAndPublish(failing(session, /^RENAME TABLE .*_journal/), r)).rejects.toThrow(/injected/);
        expect(await contents(r)).toEqual(["0:old", "1:old", "2:old"]);
        expect(await target.readRunLog(r)).toEqual([]);
        const lock = await target.lockTable(r);
        await lock.release();
        expect(await contents(r)).toEqual(["0:old", "1:old", "2:old"]);
        expect(await auxTables(target, r.schema)).toEqual([]);
      });

      it("after the decision, before the swap: the next run finishes the publish", async () => {
        const r = ref();
        await load(target, r, cols, [batch(cols, rowsAt(0, 3, "old"))], { cursor });
        await expect(stageAndPublish(failing(session, /^EXCHANGE TABLES/), r)).rejects.toThrow(/injected/);
        expect(await contents(r)).toEqual(["0:old", "1:old", "2:old"]);
        expect(await target.readRunLog(r)).toEqual([]);
        const lock = await target.lockTable(r);
        await lock.release();
        expect(await contents(r)).toHaveLength(10);
        expect((await target.readRunLog(r)).map((row, k) => decodeRunLogRow(row, k).windowEnd)).toEqual([i(5), i(10)]);
        expect(await auxTables(target, r.schema)).toEqual([]);
      });

      it("after the swap, before the log: readers see the records, which the next run writes once", async () => {
        const r = ref();
        await expect(stageAndPublish(failing(session, /^INSERT INTO _sqlload_runs/), r)).rejects.toThrow(/injected/);
        expect(await contents(r)).toHaveLength(10);
        expect(await target.readRunLog(r)).toHaveLength(2);
        // Asked for the newest, it counts the journal's records among them.
        expect(await target.readRunLog(r, { last: 1 })).toEqual((await target.readRunLog(r)).slice(-1));
        for (let k = 0; k < 2; k++) {
          const lock = await target.lockTable(r);
          await lock.release();
        }
        expect(await target.readRunLog(r)).toHaveLength(2);
        expect(
          await query(target, `SELECT count() AS n FROM \`${r.schema}\`._sqlload_runs WHERE target_name = 'events'`),
        ).toEqual([{ n: "2" }]);
        expect(await auxTables(target, r.schema)).toEqual([]);
      });

      it.each([/^DROP TABLE IF EXISTS .*_sqlload_build__/, /^DROP TABLE IF EXISTS .*_sqlload_publish__/])(
        "after the log, before the cleanup (%s): nothing is applied twice",
        async (step) => {
          const r = ref();
          await load(target, r, cols, [batch(cols, rowsAt(0, 3, "old"))], { cursor });
          await expect(stageAndPublish(failing(session, step, "after"), r)).rejects.toThrow(/injected/);
          const lock = await target.lockTable(r);
          await lock.release();
          expect(await contents(r)).toHaveLength(10);
          expect(await target.readRunLog(r)).toHaveLength(2);
          expect(await auxTables(target, r.schema)).toEqual([]);
        },
      );
    });

    it("publishes a full reload's delete of everything without copying the old rows", async () => {
      const r = ref();
      const nullable = [col("id", t("int64"), false), col("at", t("int64")), col("v", t("text"))];
      await load(target, r, nullable, [batch(nullable, [...rowsAt(0, 3, "old"), { id: 9n, at: null, v: "null cursor" }])], {
        cursor,
      });
      const unit = await target.begin(r, { strategy: "delete_insert", columns: nullable, cursor });
      await unit.deleteRange({}, { includeNulls: true });
      await unit.write(
        batch(nullable, [
          { id: 1n, at: 1n, v: "full" },
          { id: 8n, at: null, v: "full" },
        ]),
      );
      await unit.commit();
      await target.publish(r);
      expect(await contents(r)).toEqual(["1:full", "8:full"]);
    });
  });
}
