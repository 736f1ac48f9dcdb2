import { describe, expect, it, vi } from "vitest";
import type { TableSettings } from "../config/table-settings.js";
import type { Column } from "../connector/logical-types.js";
import { formatTargetTable } from "../connector/table-ref.js";
import { type CursorValue, integerCursor } from "../cursor/cursor-value.js";
import type { PlanFlags } from "../plan/plan-table.js";
import { encodeRunLogRecord, type RunLogRecord } from "../state/run-log.js";
import { prepareTable } from "./prepare-table.js";
import { MemorySource } from "./testing/memory-source.js";
import { MemoryTarget } from "./testing/memory-target.js";
import { memoryTable, TARGET_REF } from "./testing/run-memory-table.js";

const columns: Column[] = [
  { name: "id", type: { kind: "int64" }, nullable: false },
  { name: "k", type: { kind: "int64" }, nullable: true },
];
const NAME = formatTargetTable(TARGET_REF);
const int = (n: number) => integerCursor(BigInt(n));

function targetWith(ks: number[], targetColumns: Column[] = columns): MemoryTarget {
  const target = new MemoryTarget();
  target.tables.set(NAME, { columns: targetColumns, rows: ks.map((k, i) => ({ id: BigInt(i + 1), k: BigInt(k) })) });
  return target;
}
const log = (target: MemoryTarget, record: Partial<RunLogRecord> & { event: RunLogRecord["event"] }) =>
  target.runLog.push(encodeRunLogRecord({ runId: "r0", table: NAME, at: "2026-10-01T00:00:00Z", rows: 0, ...record }));

async function prepare(
  target: MemoryTarget,
  settings: TableSettings,
  opts: { flags?: PlanFlags; source?: MemorySource; targetNotes?: boolean } = {},
) {
  const source = opts.source ?? new MemorySource({ columns, rows: [], cursorColumn: "k" });
  const table = memoryTable(source, settings);
  return prepareTable({
    table,
    source,
    target,
    flags: opts.flags ?? {},
    now: new Date("2026-10-15T12:00:00Z"),
    targetNotes: opts.targetNotes,
  });
}
const value = (v: CursorValue | null | undefined) => (v ? String(v.value) : v);

describe("prepareTable: where the read starts", () => {
  it("from the destination's maximum when the target table exists", async () => {
    const prepared = await prepare(targetWith([1, 5, 3]), {});
    expect(value(prepared.plan.targetMax)).toBe("5");
    expect(value(prepared.plan.start.value)).toBe("5");
    expect(prepared.plan.includeNulls).toBe(false);
  });

  it("passes the run log's last cursor to maxCursor, so a target may bound its read by it", async () => {
    const target = targetWith([1, 5, 3]);
    log(target, { event: "run", cursor: int(4) });
    const maxCursor = vi.spyOn(target, "maxCursor");
    const prepared = await prepare(target, {});
    expect(maxCursor).toHaveBeenCalledWith(TARGET_REF, "k", "integer", { atOrAbove: int(4) });
    expect(value(prepared.plan.targetMax)).toBe("5");
  });

  it("reads everything (with NULLs) when there is no target table yet", async () => {
    const prepared = await prepare(new MemoryTarget(), {});
    expect(prepared.plan.targetMax).toBeNull();
    expect(prepared.plan.start.value).toBeUndefined();
    expect(prepared.plan.includeNulls).toBe(true);
    expect(prepared.targetColumns).toBeUndefined();
  });

  it("a windowed table continues from the logged window's end", async () => {
    const target = targetWith([1, 15]);
    log(target, { event: "run", cursor: int(15), windowEnd: int(20) });
    const prepared = await prepare(target, { batchSize: 10n, cursorStart: "0", cursorEnd: "50" });
    expect(value(prepared.plan.start.windowEnd)).toBe("20");
  });

  it("a reset after the last window means no window position", async () => {
    const target = targetWith([1, 15]);
    log(target, { event: "run", cursor: int(15), windowEnd: int(20) });
    log(target, { event: "reset", cursor: int(15) });
    const prepared = await prepare(target, { batchSize: 10n, cursorStart: "0", cursorEnd: "50" });
    expect(prepared.plan.start.windowEnd).toBeUndefined();
  });

  it("follows a pending rollback unless reloading", async () => {
    const target = targetWith([1, 9]);
    log(target, { event: "run", runId: "r1", cursor: int(4) });
    log(target, { event: "run", runId: "r2", cursor: int(9) });
    log(target, { event: "rollback", runId: "rb", cursor: int(9), rollbackTo: "r1", resumeFrom: int(4) });
    const prepared = await prepare(target, {});
    expect(value(prepared.plan.start.value)).toBe("4");
    const reloaded = await prepare(target, {}, { flags: { reload: true } });
    expect(reloaded.plan.start.value).toBeUndefined();
  });
});

describe("prepareTable: logged state", () => {
  const logged = () => new MemorySource({ columns, rows: [], cursorColumn: "k", loggedState: true });

  it("starts from the logged state when the log agrees with the data", async () => {
    const target = targetWith([1, 7]);
    log(target, { event: "run", cursor: int(7), state: { page: 3 } });
    const prepared = await prepare(target, {}, { source: logged() });
    // Nothing unreadable blocked it: the run's records say so.
    expect(prepared.logged).toEqual({ state: { page: 3 }, unblocked: true });
  });

  it("the data wins when the log disagrees with it: no state, and a reconcile", async () => {
    const target = targetWith([1, 12]);
    log(target, { event: "run", cursor: int(7), state: { page: 3 } });
    const prepared = await prepare(target, {}, { source: logged() });
    expect(prepared.logged?.state).toBeUndefined();
    expect(value(prepared.logged?.reconcile?.logged)).toBe("7");
    expect(value(prepared.logged?.reconcile?.data)).toBe("12");
  });

  it("--reload starts over without the state", async () => {
    const target = targetWith([1, 7]);
    log(target, { event: "run", cursor: int(7), state: { page: 3 } });
    const prepared = await prepare(target, {}, { source: logged(), flags: { reload: true } });
    expect(prepared.logged).toEqual({ state: undefined });
  });
});

describe("prepareTable: schema changes", () => {
  it("refuses a lossy type change (SL312), unless the table is rebuilt", async () => {
    const wide: Column[] = [columns[0]!, { name: "k", type: { kind: "int64" }, nullable: true }];
    const narrowTarget = targetWith(
      [1],
      [
        { name: "id", type: { kind: "int64" }, nullable: false },
        { name: "k", type: { kind: "int16" }, nullable: true },
      ],
    );
    const source = new MemorySource({
      columns: [wide[0]!, { name: "k", type: { kind: "text" }, nullable: true }],
      rows: [],
      cursorColumn: "k",
    });
    await expect(prepare(narrowTarget, { cursorColumn: undefined, writeStrategy: "append" }, { source })).rejects.toMatchObject({
      code: "SL312",
    });
    await expect(
      prepare(narrowTarget, { cursorColumn: undefined, writeStrategy: "append" }, { source, flags: { reload: true } }),
    ).resolves.toBeDefined();
  });

  it("shows a new source column as a note", async () => {
    const source = new MemorySource({
      columns: [...columns, { name: "extra", type: { kind: "text" }, nullable: true }],
      rows: [],
      cursorColumn: "k",
    });
    const prepared = await prepare(targetWith([1]), {}, { source });
    expect(prepared.plan.notes.join("\n")).toContain("extra");
  });
});

describe("prepareTable: the target's notes and the rate limit", () => {
  it("asks the target's planNotes only when told (plan), with the cursor, strategy and range", async () => {
    const target = targetWith([1, 3]);
    const planNotes = vi.fn(async () => ["from the target"]);
    (target as unknown as { planNotes: typeof planNotes }).planNotes = planNotes;
    const load = await prepare(target, {});
    expect(planNotes).not.toHaveBeenCalled();
    expect(load.plan.notes).not.toContain("from the target");
    const plan = await prepare(target, {}, { targetNotes: true });
    expect(planNotes).toHaveBeenCalledTimes(1);
    expect(planNotes.mock.calls[0]).toMatchObject([
      TARGET_REF,
      { cursor: { column: "k", kind: "integer" }, strategy: "delete_insert", rebuild: false },
    ]);
    expect(plan.plan.notes).toContain("from the target");
    await prepare(target, {}, { targetNotes: true, flags: { reload: true } });
    expect(planNotes.mock.calls[1]).toMatchObject([TARGET_REF, { strategy: "delete_insert", rebuild: true }]);
  });

  it("passes the table's rate_limit through", async () => {
    const prepared = await prepare(targetWith([1]), { rateLimit: { rowsPerSecond: 100 } });
    expect(prepared.rateLimit).toEqual({ rowsPerSecond: 100 });
    expect((await prepare(targetWith([1]), {})).rateLimit).toBeUndefined();
  });
});

describe("prepareTable: a long run log", () => {
  // A target that returns the whole log whatever it is asked: what the plan must equal.
  class WholeLogTarget extends MemoryTarget {
    override readRunLog(ref: typeof TARGET_REF) {
      return super.readRunLog(ref);
    }
  }
  const build = (make: () => MemoryTarget, records: (Partial<RunLogRecord> & { event: RunLogRecord["event"] })[]) => {
    const target = make();
    target.tables.set(NAME, { columns, rows: [1, 500].map((k, i) => ({ id: BigInt(i + 1), k: BigInt(k) })) });
    for (const record of records) log(target, record);
    return target;
  };
  const runs = (n: number, windowed: boolean) =>
    Array.from({ length: n }, (_, i) => ({
      event: "run" as const,
      runId: `r${i}`,
      cursor: int(500),
      ...(windowed ? { windowEnd: int(510) } : {}),
    }));
  const windowed: TableSettings = { batchSize: 10n, cursorStart: "0", cursorEnd: "600" };

  async function both(records: Parameters<typeof build>[1], settings: TableSettings, source?: () => MemorySource) {
    const whole = build(() => new WholeLogTarget(), records);
    const tail = build(() => new MemoryTarget(), records);
    const expected = await prepare(whole, settings, { source: source?.() });
    const prepared = await prepare(tail, settings, { source: source?.() });
    expect(prepared.plan).toEqual(expected.plan);
    expect(prepared.logged).toEqual(expected.logged);
    return { prepared, reads: tail.runLogReads };
  }

  it("reads only its newest records when they decide the position", async () => {
    expect((await both(runs(300, false), {})).reads).toEqual([100]);
    const { prepared, reads } = await both(runs(300, true), windowed);
    expect(reads).toEqual([100]);
    expect(value(prepared.plan.start.windowEnd)).toBe("510");
  });

  it("reads it whole when a rollback's windowed re-load began before its newest records", async () => {
    const reloaded = Array.from({ length: 150 }, (_, i) => ({
      event: "run" as const,
      runId: "again",
      cursor: int(500),
      windowEnd: int(20 + i),
    }));
    const records = [
      { event: "run" as const, runId: "early", cursor: int(9), windowEnd: int(10) },
      ...runs(5, true),
      { event: "rollback" as const, runId: "rb", cursor: int(500), rollbackTo: "early", windowEnd: int(10) },
      ...reloaded,
    ];
    const { prepared, reads } = await both(records, windowed);
    expect(reads).toEqual([100, records.length]);
    expect(value(prepared.plan.start.windowEnd)).toBe("169");
    expect(prepared.plan.start).toMatchObject({ reason: "rollback", rollback: { runId: "early" } });
  });

  it("reads it whole to name an unreadable record by its place in the whole log", async () => {
    const logged = () => new MemorySource({ columns, rows: [], cursorColumn: "k", loggedState: true });
    const target = build(() => new MemoryTarget(), runs(150, false));
    target.runLog.push({ ...target.runLog.at(-1)!, formatVersion: 99 });
    const error = await prepare(target, {}, { source: logged() }).catch((e) => e);
    expect(error).toMatchObject({ code: "SL500" });
    expect(error.message).toContain("record #151 ");
    expect(target.runLogReads).toEqual([100, 151]);
  });

  it("reads it whole for a logged table whose newest records hold no reset: one before them may block it", async () => {
    const logged = () => new MemorySource({ columns, rows: [], cursorColumn: "k", loggedState: true });
    // An unreadable record, then load commits such as a --reload makes, which does not look at the block.
    const target = build(() => new MemoryTarget(), runs(130, false));
    target.runLog.splice(4, 0, { ...target.runLog[0]!, formatVersion: 99 });
    const error = await prepare(target, {}, { source: logged() }).catch((e) => e);
    expect(error).toMatchObject({ code: "SL500" });
    expect(error.message).toContain("record #5 ");
    expect(target.runLogReads).toEqual([100, 131]);
    // A reset among them starts the position after whatever came before: the newest records decide.
    log(target, { event: "reset", cursor: int(500), state: null });
    for (const record of runs(5, false)) log(target, record);
    target.runLogReads.length = 0;
    await prepare(target, {}, { source: logged() });
    expect(target.runLogReads).toEqual([100]);
  });

  it("reads only the newest records of a logged table whose last run found nothing blocking it", async () => {
    const logged = () => new MemorySource({ columns, rows: [], cursorColumn: "k", loggedState: true });
    const target = build(() => new MemoryTarget(), runs(130, false));
    for (const record of runs(120, false)) log(target, { ...record, unblocked: true });
    const prepared = await prepare(target, {}, { source: logged() });
    expect(prepared.logged?.unblocked).toBe(true);
    expect(target.runLogReads).toEqual([100]);
  });

  it("reads it whole when its newest records only correct the position: one before them may block the table", async () => {
    const logged = () => new MemorySource({ columns, rows: [], cursorColumn: "k", loggedState: true });
    const target = build(
      () => new MemoryTarget(),
      [...runs(5, false), ...Array(120).fill({ event: "reconcile", cursor: int(500) })],
    );
    target.runLog.splice(2, 0, { ...target.runLog[0]!, body: "not json" });
    const error = await prepare(target, {}, { source: logged() }).catch((e) => e);
    expect(error.message).toContain("record #3 ");
    expect(target.runLogReads).toEqual([100, 126]);
  });
});
