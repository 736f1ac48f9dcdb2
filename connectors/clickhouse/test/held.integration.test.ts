import { decodeRunLogRow, type TargetTableRef } from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClickHouseSession, Params } from "../src/clickhouse-session.js";
import { ClickHouseTarget } from "../src/clickhouse-target.js";
import {
  at,
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
const i = at;

/** A session that counts the statements reading a table's columns (describeTable's) and listing tables by prefix. */
function counting(session: ClickHouseSession): {
  readonly session: ClickHouseSession;
  readonly describes: () => number;
  readonly listings: () => number;
} {
  let describes = 0;
  let listings = 0;
  const counted = Object.assign(Object.create(session) as ClickHouseSession, {
    query: <T>(sql: string, params?: Params) => {
      if (sql.includes("system.columns")) describes++;
      if (sql.includes("startsWith(name")) listings++;
      return session.query<T>(sql, params);
    },
    release: () => Promise.resolve(),
  });
  return { session: counted, describes: () => describes, listings: () => listings };
}

for (const engine of engines()) {
  describe(`a locked table's description, held for a load (${engine.name})`, () => {
    let target: ClickHouseTarget;
    let session: ClickHouseSession;
    const ref = (): TargetTableRef => ({ schema: freshDatabase(), name: "events" });
    const contents = async (r: TargetTableRef) =>
      (await query<{ id: string; v: string }>(target, `SELECT id, v FROM \`${r.schema}\`.events ORDER BY id`)).map(
        (row) => `${row.id}:${row.v}`,
      );
    const windowEnds = async (r: TargetTableRef) =>
      (await target.readRunLog(r)).map((row, k) => decodeRunLogRow(row, k).windowEnd);

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

    it("reads it once for a load's look, maximum, evolution check, staging and publish", async () => {
      const r = ref();
      await load(target, r, cols, [batch(cols, rowsAt(0, 3, "old"))], { cursor: windowCursor });
      const s = counting(session);
      const tg = new ClickHouseTarget(s.session);
      const lock = await tg.lockTable(r);
      // The lock's own listing, and one for the leftovers of every kind (three before).
      expect(s.listings()).toBe(2);
      try {
        expect((await tg.describeTable(r))?.columns.map((c) => c.name)).toEqual(["id", "at", "v"]);
        expect(await tg.maxCursor(r, "at", "integer")).toEqual(i(2));
        await tg.ensureTable(r, cols, {});
        await window(tg, r, 2, 6, "new");
        await tg.publish(r);
      } finally {
        await lock.release();
      }
      // Before, each step read the catalog again: six statements.
      expect(s.describes()).toBe(1);
      expect(await contents(r)).toEqual(["0:old", "1:old", "2:new", "3:new", "4:new", "5:new"]);
    });

    it("reads it again after the connection's own publish and DDL, and unlocked every time", async () => {
      const r = ref();
      const tg = new ClickHouseTarget(session);
      const lock = await tg.lockTable(r);
      try {
        // Made by ensureTable (provisional), rebuilt by the first publish, widened, published again.
        await tg.ensureTable(r, cols, {});
        await window(tg, r, 0, 5, "first");
        await tg.publish(r);
        expect(await tg.maxCursor(r, "at", "integer")).toEqual(i(4));
        const wider = [...cols, col("extra", t("text"))];
        expect((await tg.ensureTable(r, wider, {})).map((c) => c.name)).toEqual(["id", "at", "v", "extra"]);
        await window(tg, r, 5, 10, "second", wider);
        await tg.publish(r);
        expect(await tg.maxCursor(r, "at", "integer")).toEqual(i(9));
      } finally {
        await lock.release();
      }
      expect(await contents(r)).toHaveLength(10);
      expect(await windowEnds(r)).toEqual([i(5), i(10)]);
      expect(await query(target, `SELECT count() AS n FROM \`${r.schema}\`.events WHERE extra IS NULL`)).toEqual([{ n: "10" }]);

      // Not locked: every call reads the catalog, so a change by someone else is seen at once.
      const s = counting(session);
      const unlocked = new ClickHouseTarget(s.session);
      await unlocked.maxCursor(r, "at", "integer");
      await unlocked.maxCursor(r, "at", "integer");
      expect(s.describes()).toBe(2);
    });

    it("reads it again after a publish that failed after its swap, so the next publish swaps from the right table", async () => {
      const r = ref();
      await load(target, r, cols, [batch(cols, rowsAt(0, 3, "old"))], { cursor: windowCursor });
      // The swap happens; recording it in the run log fails (a dropped connection, say).
      const tg = new ClickHouseTarget(failing(session, /^INSERT INTO _sqlload_runs/));
      const lock = await tg.lockTable(r);
      try {
        await window(tg, r, 3, 5, "first");
        await expect(tg.publish(r)).rejects.toThrow(/injected/);
        expect(await contents(r)).toHaveLength(5);
        // A publish journaled against the table before that swap would find it replaced and give up.
        await window(tg, r, 5, 8, "second");
        await tg.publish(r);
      } finally {
        await lock.release();
      }
      expect(await contents(r)).toEqual(["0:old", "1:old", "2:old", "3:first", "4:first", "5:second", "6:second", "7:second"]);
      expect(await windowEnds(r)).toContainEqual(i(8));
    });
  });
}
