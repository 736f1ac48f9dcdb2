import { describe, expect, it } from "vitest";
import type { Column } from "../connector/logical-types.js";
import { batchFromRows } from "../connector/record-batch.js";
import { integerCursor } from "../cursor/cursor-value.js";
import type { RunEvent } from "../events/run-event.js";
import { planTable } from "../plan/plan-table.js";
import { decodeRunLogRow } from "../state/run-log.js";
import { commitSchedule } from "./commit-schedule.js";
import { Committer } from "./committer.js";
import { BatchFilter, ReadPosition } from "./read-items.js";
import { MemoryTarget } from "./testing/memory-target.js";

const columns: Column[] = [
  { name: "id", type: { kind: "int64" }, nullable: false },
  { name: "k", type: { kind: "int64" }, nullable: true },
];
const ref = { schema: "raw", name: "app__t" };

function setup(
  options: {
    strategy?: "delete_insert" | "merge" | "replace";
    logged?: boolean;
    staged?: boolean;
    sourceColumns?: Column[];
  } = {},
) {
  const target = new MemoryTarget(options.staged ? { commitModel: "staged" } : {});
  const plan = planTable({
    source: "app",
    key: "t",
    target: ref,
    settings: { cursorColumn: "k", writeStrategy: options.strategy, primaryKey: ["id"] },
    cursor: { column: "k", kind: "integer", nullable: true },
    targetMax: null,
    flags: {},
    now: new Date(),
    commitModel: target.capabilities.commitModel,
  });
  const events: RunEvent[] = [];
  const filter = new BatchFilter("raw.app__t", undefined, "k", true);
  const position = new ReadPosition(null);
  const committer = new Committer({
    plan,
    schedule: commitSchedule(plan, target.capabilities.commitModel),
    target,
    sourceColumns: "sourceColumns" in options ? options.sourceColumns : columns,
    targetColumns: undefined,
    filter,
    position,
    runId: "run-1",
    table: "raw.app__t",
    emit: (e) => events.push(e),
    logged: options.logged === true,
    state: options.logged ? "token-0" : undefined,
  });
  const kept = (...ks: number[]) =>
    filter.keep(
      batchFromRows(
        columns,
        ks.map((k) => ({ id: BigInt(k), k: BigInt(k) })),
      ),
      { range: {}, includeNulls: true },
    );
  const records = () => target.runLog.map((row, i) => decodeRunLogRow(row, i));
  return { target, committer, events, kept, records };
}

describe("Committer", () => {
  it("commits rows with one run-log record holding the data's cursor, rows and window end", async () => {
    const { target, committer, kept, records, events } = setup();
    await committer.begin(undefined, { range: {}, includeNulls: true });
    await committer.write(kept(1, 2));
    expect(target.rows(ref)).toHaveLength(0);
    await committer.commit({ range: { from: integerCursor(0), to: integerCursor(10) }, ref: { index: 0, count: 1 } });
    expect(target.rows(ref)).toHaveLength(2);
    expect(records()).toMatchObject([{ event: "run", cursor: integerCursor(2), windowEnd: integerCursor(10), rows: 2 }]);
    expect(records()[0]?.state).toBeUndefined();
    expect(committer).toMatchObject({ committedRows: 2, windowsDone: 1, committedPosition: integerCursor(2) });
    expect(events.map((e) => e.type)).toEqual(["rows_read", "window_committed"]);
  });

  it("gives every record of a logged table its state, the reconcile record included", async () => {
    const { committer, kept, records } = setup({ logged: true });
    await committer.reconcile({ logged: integerCursor(9), data: integerCursor(4) });
    await committer.begin(undefined);
    await committer.write(kept(5));
    committer.state = "token-1";
    await committer.commit();
    expect(records().map((r) => [r.event, r.state])).toEqual([
      ["reconcile", null],
      ["run", "token-1"],
    ]);
    expect(records()[0]?.note).toContain("logged cursor 9 differs from the data's maximum 4");
  });

  it("rebuilds nothing when a rebuild read no rows and knows no columns, logging that a logged position is gone", async () => {
    const { target, committer, records } = setup({ strategy: "replace", logged: true, sourceColumns: undefined });
    await committer.begin(undefined);
    await committer.commit();
    expect(target.tables.size).toBe(0);
    expect(records()).toMatchObject([{ event: "run", state: "token-0", cursor: null, rows: 0 }]);
  });

  it("keeps what it staged from view until the end of the run under delete_insert", async () => {
    const { target, committer, kept, events } = setup({ staged: true });
    await committer.begin(undefined, { range: {}, includeNulls: true });
    await committer.write(kept(1));
    await committer.commit();
    expect(target.rows(ref)).toHaveLength(0);
    await committer.finish();
    expect(target.rows(ref)).toHaveLength(1);
    expect(events.filter((e) => e.type === "table_published")).toHaveLength(1);
  });

  it("rolls the unit in flight back and discards what a failed run staged", async () => {
    const { target, committer, kept } = setup({ staged: true });
    await committer.begin(undefined, { range: {}, includeNulls: true });
    await committer.write(kept(1));
    await committer.commit();
    await committer.begin(undefined);
    await committer.write(kept(2));
    await committer.abort();
    expect(target.staged).toHaveLength(0);
    await committer.finish();
    expect(target.rows(ref)).toHaveLength(0);
  });

  it("refuses a key seen twice within one commit, and forgets keys once committed", async () => {
    const { committer, kept } = setup({ strategy: "merge" });
    await committer.begin(undefined);
    await committer.write(kept(1));
    await committer.commit();
    await committer.begin(undefined);
    await committer.write(kept(1));
    await expect(committer.write(kept(1))).rejects.toMatchObject({ code: "SL301" });
  });

  it("codes the target's failures SL305", async () => {
    const { target, committer, kept } = setup();
    target.failures = [{ op: "write", nth: 1 }];
    await committer.begin(undefined);
    await expect(committer.write(kept(1))).rejects.toMatchObject({
      code: "SL305",
      message: expect.stringContaining("writing raw.app__t failed"),
    });
  });
});
