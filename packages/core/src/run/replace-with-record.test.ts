import { describe, expect, it } from "vitest";
import type { Column } from "../connector/logical-types.js";
import { batchFromRows } from "../connector/record-batch.js";
import type { ReadRequest, SourceItem } from "../connector/source.js";
import type { WriteStrategy } from "../connector/target.js";
import { decodeRunLogRow } from "../state/run-log.js";
import { IN_PLACE_NOTE, replacesWithRecord } from "./replace-with-record.js";
import { MemorySource } from "./testing/memory-source.js";
import { MemoryTarget } from "./testing/memory-target.js";
import { runMemoryTable, TARGET_REF } from "./testing/run-memory-table.js";

const columns: Column[] = [
  { name: "id", type: { kind: "int64" }, nullable: false },
  { name: "page", type: { kind: "int64" }, nullable: false },
];

/**
 * A feed read page by page with a sync token (the number of pages read), two rows a page, as a
 * TypeScript table with `state = "logged"` and no cursor column is. `pages.total` grows between runs.
 */
function feed(pages: { total: number }, cols: readonly Column[] = columns, extra: (page: number) => object = () => ({})) {
  return new MemorySource({
    columns: cols,
    rows: [],
    loggedState: true,
    script: async function* (request: ReadRequest): AsyncIterable<SourceItem> {
      for (let page = ((request.state as number | undefined) ?? 0) + 1; page <= pages.total; page++) {
        const rows = [2 * page - 1, 2 * page].map((id) => ({ id: BigInt(id), page: BigInt(page), ...extra(page) }));
        yield { kind: "batch", batch: batchFromRows(cols, rows) };
        yield { kind: "checkpoint", state: page };
      }
    },
  });
}

const appendLogged = { writeStrategy: "append" as const, cursorColumn: undefined };
const ids = (target: MemoryTarget) =>
  target
    .rows(TARGET_REF)
    .map((r) => Number(r.id))
    .sort((a, b) => a - b);
const states = (target: MemoryTarget) => target.runLog.map((row, i) => decodeRunLogRow(row, i).state);
const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("replacesWithRecord", () => {
  const rebuild = { rebuild: true };
  const afterSwap = { replaceRecordAfterSwap: true };
  const append = { strategy: "append" as WriteStrategy, cursor: undefined };

  it("holds only for a rebuild of a logged append table without a cursor, on a target recording after its swap", () => {
    expect(replacesWithRecord(append, rebuild, afterSwap, true)).toBe(true);
    expect(replacesWithRecord(append, { rebuild: false }, afterSwap, true)).toBe(false);
    expect(replacesWithRecord(append, rebuild, { replaceRecordAfterSwap: false }, true)).toBe(false);
    expect(replacesWithRecord(append, rebuild, afterSwap, false)).toBe(false);
    // The data's maximum wins over a stale log.
    const cursor = { column: "k", kind: "integer" } as const;
    expect(replacesWithRecord({ ...append, cursor } as never, rebuild, afterSwap, true)).toBe(false);
    // These overwrite what they read again.
    for (const strategy of ["merge", "replace", "delete_insert"] as const) {
      expect(replacesWithRecord({ ...append, strategy }, rebuild, afterSwap, true)).toBe(false);
    }
  });
});

describe("a --reload of a logged append table without a cursor, on a target recording replaces after the swap", () => {
  it("survives a crash where the swap would have been: the rerun ends equal to the source, nothing doubled", async () => {
    const target = new MemoryTarget({ replaceRecordAfterSwap: true });
    const pages = { total: 2 };
    await runMemoryTable(feed(pages), target, appendLogged);
    expect(ids(target)).toEqual(upTo(4));
    pages.total = 3;
    // Swapping, then dying before the record, would leave rows 1–6 with the log at page 2.
    target.failures = [{ op: "record", nth: 1 }];
    const reload = await runMemoryTable(feed(pages), target, appendLogged, { flags: { reload: true }, runId: "run-2" });
    expect(reload.result.status).toBe("loaded");
    expect(target.calls.record).toBe(0);
    expect(states(target).at(-1)).toBe(3);
    expect(reload.of("table_started")[0]?.plan.notes).toContain(IN_PLACE_NOTE);
    pages.total = 4;
    await runMemoryTable(feed(pages), target, appendLogged, { runId: "run-3" });
    expect(ids(target)).toEqual(upTo(8));
  });

  it("survives a crash with the commit in flight: neither rows nor record changed, the rerun carries on", async () => {
    const target = new MemoryTarget({ replaceRecordAfterSwap: true });
    const pages = { total: 2 };
    await runMemoryTable(feed(pages), target, appendLogged);
    pages.total = 3;
    target.failures = [{ op: "commit", nth: target.calls.commit + 1 }];
    const reload = await runMemoryTable(feed(pages), target, appendLogged, { flags: { reload: true }, runId: "run-2" });
    expect(reload.result.status).toBe("failed");
    expect(ids(target)).toEqual(upTo(4));
    expect(states(target).at(-1)).toBe(2);
    await runMemoryTable(feed(pages), target, appendLogged, { runId: "run-3" });
    expect(ids(target)).toEqual(upTo(6));
  });

  it("evolves the live table's columns first, then replaces its rows with the new ones", async () => {
    const target = new MemoryTarget({ replaceRecordAfterSwap: true });
    await runMemoryTable(feed({ total: 1 }), target, appendLogged);
    const wider: Column[] = [...columns, { name: "note", type: { kind: "text" }, nullable: true }];
    await runMemoryTable(
      feed({ total: 2 }, wider, (p) => ({ note: `p${p}` })),
      target,
      appendLogged,
      { flags: { reload: true }, runId: "run-2" },
    );
    expect((await target.describeTable(TARGET_REF))?.columns.map((c) => c.name)).toEqual(["id", "page", "note"]);
    expect(target.rows(TARGET_REF).map((r) => r.note)).toEqual(["p1", "p1", "p2", "p2"]);
  });

  it("refuses a column whose type changed with SL302 naming the table and the fix, changing nothing", async () => {
    const target = new MemoryTarget({ replaceRecordAfterSwap: true });
    await runMemoryTable(feed({ total: 1 }), target, appendLogged);
    const changed: Column[] = [columns[0]!, { name: "page", type: { kind: "text" }, nullable: false }];
    const reload = await runMemoryTable(
      feed({ total: 2 }, changed, (p) => ({ page: `p${p}` })),
      target,
      appendLogged,
      {
        flags: { reload: true },
        runId: "run-2",
      },
    );
    expect(reload.result.error).toMatchObject({ code: "SL302" });
    expect(reload.result.error?.message).toContain("raw.app__t");
    expect(reload.result.error?.hint).toMatch(/Drop the target table by hand/);
    expect(ids(target)).toEqual(upTo(2));
    expect(states(target)).toEqual([1]);
  });

  it("keeps the swap for every other table (here: a logged merge table)", async () => {
    const target = new MemoryTarget({ replaceRecordAfterSwap: true });
    const merge = { writeStrategy: "merge" as const, primaryKey: ["id"], cursorColumn: undefined };
    await runMemoryTable(feed({ total: 1 }), target, merge);
    const reload = await runMemoryTable(feed({ total: 2 }), target, merge, { flags: { reload: true }, runId: "run-2" });
    expect(target.calls.record).toBe(1);
    expect(ids(target)).toEqual(upTo(4));
    expect(reload.of("table_started")[0]?.plan.notes).not.toContain(IN_PLACE_NOTE);
  });
});
