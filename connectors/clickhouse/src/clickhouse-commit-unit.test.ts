import { batchFromRows, type Column } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { ClickHouseCommitUnit } from "./clickhouse-commit-unit.js";
import type { ClickHouseSession } from "./clickhouse-session.js";
import type { TableStage } from "./clickhouse-stage.js";

/**
 * A session whose inserts end only when told to, as an HTTP insert streams from its buffer for as
 * long as it runs: each insert's bytes are copied when it starts and compared when it ends.
 */
function slowSession() {
  const inserts: { atStart: Buffer; blocks: Buffer; end: () => void }[] = [];
  const session = {
    insertNative(_db: string, _table: string, _columns: readonly string[], _structure: string, blocks: Buffer) {
      return new Promise<void>((end) => inserts.push({ atStart: Buffer.from(blocks), blocks, end }));
    },
  } as unknown as ClickHouseSession;
  return { session, inserts };
}

/** Just what a unit that appends asks of its table's stage. */
const stage = {
  noteUnit() {},
  resolveLayout: async () => ({ kind: "like" }),
  newName: (kind: string) => `_${kind}`,
  createTable: async () => {},
  commitUnit: async () => {},
  pending: true,
  drop: async () => {},
} as unknown as TableStage;

describe("ClickHouseCommitUnit inserts", () => {
  it("never encodes into the buffer of an insert that has not ended", async () => {
    const { session, inserts } = slowSession();
    const columns: Column[] = [{ name: "body", type: { kind: "text" }, nullable: true }];
    // Inserts of 1 byte: every batch is one, so each flush waits for the insert before it.
    const unit = new ClickHouseCommitUnit(session, stage, { schema: "raw", name: "events" }, { strategy: "append", columns }, 1);
    const ended: typeof inserts = [];
    /** Ends the inserts running, once `work` has had a turn to encode its batch, checking their bytes first. */
    const endRunning = async (work: Promise<void>) => {
      await new Promise((turn) => setImmediate(turn));
      for (const insert of inserts.splice(0)) {
        expect(insert.blocks.equals(insert.atStart)).toBe(true);
        insert.end();
        ended.push(insert);
      }
      await work;
    };
    const batch = (b: number) => batchFromRows(columns, [{ body: String(b).repeat(100 - b * 10) }]);
    await unit.write(batch(0));
    // Each later batch is encoded while the insert before it runs, and waits for it to end.
    for (let b = 1; b < 6; b++) await endRunning(unit.write(batch(b)));
    await endRunning(unit.commit());
    expect(ended.map((insert) => insert.atStart.toString("latin1").match(/(\d)\1+/)?.[0].length)).toEqual([
      100, 90, 80, 70, 60, 50,
    ]);
  });
});
