import { describe, expect, it } from "vitest";
import type { Column } from "../connector/logical-types.js";
import { batchFromRows } from "../connector/record-batch.js";
import type { ReadRequest, SourceItem } from "../connector/source.js";
import { cursorToString } from "../cursor/cursor-value.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import { decodeRunLogRow } from "../state/run-log.js";
import { MemorySource, type MemorySourceOptions } from "./testing/memory-source.js";
import { MemoryTarget } from "./testing/memory-target.js";
import { runMemoryTable, TARGET_REF } from "./testing/run-memory-table.js";

const columns: Column[] = [
  { name: "id", type: { kind: "int64" }, nullable: false },
  { name: "k", type: { kind: "int64" }, nullable: true },
];
const rowsAt = (...ks: (number | null)[]) => ks.map((k, i) => ({ id: BigInt(i + 1), k: k === null ? null : BigInt(k) }));
const source = (rows: ReturnType<typeof rowsAt>, extra: Partial<MemorySourceOptions> = {}) =>
  new MemorySource({ columns, rows, cursorColumn: "k", ...extra });
const landed = (target: MemoryTarget) =>
  target
    .rows(TARGET_REF)
    .map((r) => (r.k === null ? null : Number(r.k)))
    .sort((a, b) => (a ?? -1) - (b ?? -1));
const records = (target: MemoryTarget) => target.runLog.map((row, i) => decodeRunLogRow(row, i));
const ends = (target: MemoryTarget) => records(target).map((r) => (r.windowEnd ? cursorToString(r.windowEnd) : null));
const windowed = { batchSize: 10n, cursorStart: "0", cursorEnd: "50" } as const;

describe("runTable: one commit per read", () => {
  it("loads everything once, then replaces from the target's maximum on the next run", async () => {
    const target = new MemoryTarget();
    const first = await runMemoryTable(source(rowsAt(1, 2, 3, null)), target, {});
    expect(first.result).toMatchObject({ status: "loaded", rows: 4, windows: 0 });
    expect(first.of("window_committed")).toHaveLength(1);
    expect(landed(target)).toEqual([null, 1, 2, 3]);
    expect(records(target).map((r) => r.cursor && cursorToString(r.cursor))).toEqual(["3"]);

    // The source gained rows at and after the maximum: they replace the rows at 3, NULLs are not read again.
    const second = await runMemoryTable(source(rowsAt(1, 2, 3, null, 3, 4)), target, {});
    expect(second.result).toMatchObject({ status: "loaded", rows: 3 });
    expect(landed(target)).toEqual([null, 1, 2, 3, 3, 4]);
    expect(cursorToString(second.result.positionAfter!)).toBe("4");
  });

  it("drops rows a source yields outside the range read, and counts them", async () => {
    const target = new MemoryTarget();
    await runMemoryTable(source(rowsAt(1, 2)), target, {});
    const run = await runMemoryTable(source(rowsAt(1, 2, 5), { ignoreRange: true }), target, {});
    expect(run.result).toMatchObject({ status: "loaded", rows: 2, dropped: 1 });
    expect(landed(target)).toEqual([1, 2, 5]);
  });

  it("appends without a cursor, and rebuilds under replace", async () => {
    const target = new MemoryTarget();
    const plain = new MemorySource({ columns, rows: rowsAt(7, 8) });
    await runMemoryTable(plain, target, { writeStrategy: "append" });
    await runMemoryTable(plain, target, { writeStrategy: "append" });
    expect(landed(target)).toEqual([7, 7, 8, 8]);
    const rebuilt = await runMemoryTable(plain, target, { writeStrategy: "replace" });
    expect(rebuilt.result).toMatchObject({ status: "loaded", rows: 2 });
    expect(landed(target)).toEqual([7, 8]);
  });
});

describe("runTable: the unit begins while the first rows come", () => {
  /** A read whose first batch waits (up to a second) for the target's first begin, noting whether it came. */
  const waitingForBegin = (target: MemoryTarget, fail?: Error) => {
    const seen = { beganFirst: false };
    const script = async function* (): AsyncGenerator<SourceItem> {
      for (let waited = 0; target.calls.begin === 0 && waited < 1000; waited += 5)
        await new Promise((resolve) => setTimeout(resolve, 5));
      seen.beganFirst = target.calls.begin > 0;
      if (fail) throw fail;
      yield { kind: "batch", batch: batchFromRows(columns, rowsAt(1, 2)) };
    };
    return { seen, source: source([], { script }) };
  };

  it("begins it before the source's first batch, when the source described the columns", async () => {
    const target = new MemoryTarget();
    const { seen, source: waiting } = waitingForBegin(target);
    const run = await runMemoryTable(waiting, target, {});
    expect(seen.beganFirst).toBe(true);
    expect(run.result).toMatchObject({ status: "loaded", rows: 2 });
    expect(landed(target)).toEqual([1, 2]);
  });

  it("fails with the read's error when the read fails meanwhile, and with the target's when begin does", async () => {
    const target = new MemoryTarget();
    const { source: failing } = waitingForBegin(target, new SqlloadError("SL304", "the source went away"));
    const run = await runMemoryTable(failing, target, {});
    expect(run.result).toMatchObject({ status: "failed", error: { code: "SL304" } });
    expect(landed(target)).toEqual([]);
    const refusing = new MemoryTarget();
    refusing.failures = [{ op: "begin", nth: 1, error: new SqlloadError("SL402", "no room") }];
    const { source: reading } = waitingForBegin(refusing);
    const refused = await runMemoryTable(reading, refusing, {});
    expect(refused.result).toMatchObject({ status: "failed", error: { code: "SL402" } });
    expect(landed(refusing)).toEqual([]);
    expect(reading.closed).toBe(reading.opened);
  });
});

describe("runTable: the target's table is checked while the source opens", () => {
  /** A source whose opening waits (up to a second) for the target's ensureTable, noting whether it came; or fails. */
  const waitingForEnsure = (target: MemoryTarget, fail?: Error) => {
    const seen = { ensuredFirst: false, ensures: 0 };
    const ensure = target.ensureTable.bind(target);
    target.ensureTable = (...args) => {
      seen.ensures++;
      return ensure(...args);
    };
    const reading = source(rowsAt(1, 2));
    const open = reading.openTable.bind(reading);
    reading.openTable = async (...args) => {
      for (let waited = 0; seen.ensures === 0 && waited < 1000; waited += 5)
        await new Promise((resolve) => setTimeout(resolve, 5));
      seen.ensuredFirst = seen.ensures > 0;
      if (fail) throw fail;
      return open(...args);
    };
    return { seen, source: reading };
  };

  it("checks a table the target has beside the source's snapshot, and makes a new one only once the source opened", async () => {
    const target = new MemoryTarget();
    const first = waitingForEnsure(target);
    expect((await runMemoryTable(first.source, target, {})).result).toMatchObject({ status: "loaded", rows: 2 });
    // Not there yet: made by the first unit, after the source opened.
    expect(first.seen.ensuredFirst).toBe(false);
    const again = waitingForEnsure(target);
    expect((await runMemoryTable(again.source, target, {})).result).toMatchObject({ status: "loaded" });
    expect(again.seen).toEqual({ ensuredFirst: true, ensures: 1 });
    expect(landed(target)).toEqual([1, 2]);
  });

  it("leaves no table behind for a source that fails to open", async () => {
    const target = new MemoryTarget();
    const failing = waitingForEnsure(target, new SqlloadError("SL304", "permission denied for table orders"));
    const run = await runMemoryTable(failing.source, target, {});
    expect(run.result).toMatchObject({ status: "failed", error: { code: "SL304" } });
    expect(failing.seen.ensures).toBe(0);
    expect(await target.describeTable(TARGET_REF)).toBeNull();
  });
});

describe("runTable: chunked commits of an ordered read", () => {
  it("commits at commit points, never between rows of one cursor value", async () => {
    const target = new MemoryTarget();
    const ordered = source(rowsAt(3, 1, 2, 2, 2, 4), { capabilities: { orderedReads: true, exactRange: true }, batchRows: 2 });
    const run = await runMemoryTable(ordered, target, {}, { chunkBytes: 1 });
    expect(ordered.reads[0]?.ordered).toBe(true);
    const commits = run.of("window_committed");
    // Batches [1,2] [2,2] [3,4]: a commit point only after the batches ending where the next value differs.
    expect(commits.map((c) => c.rows)).toEqual([4, 2]);
    expect(commits.map((c) => c.position && cursorToString(c.position))).toEqual(["2", "4"]);
    expect(landed(target)).toEqual([1, 2, 2, 2, 3, 4]);
  });
});

describe("runTable: a table its source reckons small is read unordered first", () => {
  const ordered = { orderedReads: true, exactRange: true };
  const strategies = [{ writeStrategy: "append" as const }, { writeStrategy: "delete_insert" as const }];

  it.each(strategies)("commits it once, unordered, when its bytes stay under a commit's ($writeStrategy)", async (settings) => {
    const target = new MemoryTarget();
    const small = source(rowsAt(3, 1, 2, 2, 2, 4), { capabilities: ordered, batchRows: 2, fullReadBytes: 3 });
    const run = await runMemoryTable(small, target, settings, { chunkBytes: 7 });
    expect(small.reads.map((r) => r.ordered)).toEqual([false]);
    expect(run.of("window_committed").map((c) => c.rows)).toEqual([6]);
    expect(run.of("table_warning")).toEqual([]);
    expect(records(target).map((r) => r.cursor && cursorToString(r.cursor))).toEqual(["4"]);
    expect(landed(target)).toEqual([1, 2, 2, 2, 3, 4]);
    expect(small.opened).toBe(1);
  });

  it.each(strategies)(
    "rolls back and reads again in cursor order once the bytes reach a commit's, committing at its points ($writeStrategy)",
    async (settings) => {
      const target = new MemoryTarget();
      // Reckoned at 2 (half of 4), it reads 6: its second batch would reach a commit's bytes.
      const low = source(rowsAt(3, 1, 2, 2, 2, 4), { capabilities: ordered, batchRows: 2, fullReadBytes: 2 });
      const run = await runMemoryTable(low, target, settings, { chunkBytes: 4 });
      expect(low.reads.map((r) => r.ordered)).toEqual([false, true]);
      expect(low.opened).toBe(2);
      expect(low.closed).toBe(2);
      // As an ordered read commits: [1,2] [2,2] [3,4], a point only where the next value differs.
      expect(run.of("window_committed").map((c) => c.rows)).toEqual([4, 2]);
      expect(run.result).toMatchObject({ status: "loaded", rows: 6, commits: 2 });
      expect(records(target).map((r) => r.cursor && cursorToString(r.cursor))).toEqual(["2", "4"]);
      expect(landed(target)).toEqual([1, 2, 2, 2, 3, 4]);
      const [warning] = run.of("table_warning");
      expect(warning?.message).toMatch(/read again in cursor order/);
      // Progress counts what the unit kept, not what was rolled back.
      expect(run.of("rows_read").at(-1)?.rows).toBe(6);
    },
  );

  it("re-reads over rows already in the target: delete_insert replaces the range exactly once", async () => {
    const target = new MemoryTarget();
    await runMemoryTable(source(rowsAt(1, 2, 3)), target, {});
    const low = source(rowsAt(1, 2, 3, 3, 4, 5, 6, 7), { capabilities: ordered, batchRows: 2, fullReadBytes: 1 });
    const run = await runMemoryTable(low, target, {}, { chunkBytes: 4 });
    expect(low.reads.map((r) => r.ordered)).toEqual([false, true]);
    expect(run.result.status).toBe("loaded");
    expect(landed(target)).toEqual([1, 2, 3, 3, 4, 5, 6, 7]);
    // The first run logged 3; this one commits at 5 (four rows) and at the end.
    expect(records(target).map((r) => r.cursor && cursorToString(r.cursor))).toEqual(["3", "5", "7"]);
  });

  it("counts a row the range filter dropped once, not again on the re-read", async () => {
    const target = new MemoryTarget();
    await runMemoryTable(source(rowsAt(1, 2)), target, {});
    // Read from 2 on, by a source that ignores ranges: the row at 1 is dropped, by each read.
    const careless = source(rowsAt(1, 2, 5, 6, 7, 8), {
      capabilities: { orderedReads: true, exactRange: false },
      ignoreRange: true,
      batchRows: 2,
      fullReadBytes: 1,
    });
    const run = await runMemoryTable(careless, target, {}, { chunkBytes: 4 });
    expect(careless.reads.map((r) => r.ordered)).toEqual([false, true]);
    expect(run.result).toMatchObject({ status: "loaded", dropped: 1 });
  });

  it("merge: a key repeated far apart in cursor order is left to the ordered read, which commits between them", async () => {
    // On disk the two versions of id 1 lie side by side; in cursor order, three rows apart.
    const rows = [1, 1, 2, 3, 4].map((id, i) => ({ id: BigInt(id), k: BigInt([1, 4, 2, 3, 5][i] as number) }));
    const settings = { writeStrategy: "merge" as const, primaryKey: ["id"] };
    const target = new MemoryTarget();
    const low = source(rows, { capabilities: ordered, batchRows: 1, fullReadBytes: 1 });
    const run = await runMemoryTable(low, target, settings, { chunkBytes: 3 });
    expect(low.reads.map((r) => r.ordered)).toEqual([false, true]);
    expect(run.result.status).toBe("loaded");
    expect(run.of("table_warning")[0]?.message).toMatch(/share a primary key/);
    expect(
      target
        .rows(TARGET_REF)
        .map((r) => `${r.id}:${r.k}`)
        .sort(),
    ).toEqual(["1:4", "2:2", "3:3", "4:5"]);
  });

  it("interrupted while the reader is opened again: nothing lands, SL307, every reader closed", async () => {
    const target = new MemoryTarget();
    const controller = new AbortController();
    class AbortOnReopen extends MemorySource {
      override async openTable() {
        if (this.opened === 1) controller.abort();
        return super.openTable();
      }
    }
    const low = new AbortOnReopen({
      columns,
      rows: rowsAt(1, 2, 3, 4, 5, 6),
      cursorColumn: "k",
      capabilities: ordered,
      batchRows: 2,
      fullReadBytes: 1,
    });
    const run = await runMemoryTable(low, target, {}, { chunkBytes: 4, signal: controller.signal });
    expect(run.result).toMatchObject({ status: "failed", error: { code: "SL307" } });
    expect(target.rows(TARGET_REF)).toEqual([]);
    expect(target.runLog).toEqual([]);
    expect(low.closed).toBe(low.opened);
  });

  it("reads in cursor order from the start a table reckoned at more than half a commit, or not reckoned", async () => {
    for (const fullReadBytes of [4, undefined]) {
      const target = new MemoryTarget();
      const big = source(rowsAt(3, 1, 2, 2, 2, 4), { capabilities: ordered, batchRows: 2, fullReadBytes });
      await runMemoryTable(big, target, {}, { chunkBytes: 7 });
      expect(big.reads.map((r) => r.ordered)).toEqual([true]);
    }
  });

  it("fails with SL406 when a source that reckons its size yields a batch without its bytes", async () => {
    const target = new MemoryTarget();
    const careless = scripted(
      async function* () {
        yield batch(1, 2);
      },
      { capabilities: ordered, cursorColumn: "k", fullReadBytes: 1 },
    );
    const run = await runMemoryTable(careless, target, {}, { chunkBytes: 10 });
    expect(run.result.status).toBe("failed");
    expect(run.result.error).toMatchObject({ code: "SL406" });
    expect(landed(target)).toEqual([]);
  });
});

describe("runTable: windows", () => {
  it("commits one window at a time, logging each window's end", async () => {
    const target = new MemoryTarget();
    const run = await runMemoryTable(source(rowsAt(1, 12, 25, 38, 41)), target, windowed);
    expect(run.result).toMatchObject({ status: "loaded", rows: 5, windows: 5, caughtUp: true });
    expect(ends(target)).toEqual(["10", "20", "30", "40", "50"]);
    expect(landed(target)).toEqual([1, 12, 25, 38, 41]);
  });

  it("skips windows holding no source rows when the source can say, replacing them too", async () => {
    const target = new MemoryTarget();
    const sparse = source(rowsAt(1, 33), { capabilities: { firstCursorLookup: true } });
    const run = await runMemoryTable(sparse, target, windowed);
    expect(run.result).toMatchObject({ status: "loaded", rows: 2, windows: 3, caughtUp: true });
    // Window 0, then straight to window 3; then nothing is left, so one empty commit moves to the end.
    expect(sparse.reads.map((r) => r.window?.index)).toEqual([0, 3]);
    expect(ends(target)).toEqual(["10", "40", "50"]);
  });

  it("deletes no window above the table's maximum: none of a new table's, and on a later run only those at or below it", async () => {
    const target = new MemoryTarget();
    const rows = source(rowsAt(1, 12, 25, 38, 41));
    await runMemoryTable(rows, target, { ...windowed, cursorEnd: "20" });
    expect(target.deleted).toEqual([]);
    expect(landed(target)).toEqual([1, 12]);
    // From 10 again: the maximum (12) lies in the first window only, whose rows are replaced once.
    const again = await runMemoryTable(rows, target, windowed, { runId: "run-2", flags: { startCursor: "10" } });
    expect(again.result).toMatchObject({ status: "loaded", rows: 4, windows: 4 });
    expect(
      target.deleted.map((d) => [d.range.from && cursorToString(d.range.from), d.range.to && cursorToString(d.range.to)]),
    ).toEqual([["10", "20"]]);
    expect(landed(target)).toEqual([1, 12, 25, 38, 41]);
    // From 30: the maximum (41) lies in the last window, so each window is deleted before its rows land.
    const over = await runMemoryTable(rows, target, windowed, { runId: "run-3", flags: { startCursor: "30" } });
    expect(over.result).toMatchObject({ status: "loaded", rows: 2 });
    expect(target.deleted.slice(1).map((d) => d.range.from && cursorToString(d.range.from))).toEqual(["30", "40"]);
    expect(landed(target)).toEqual([1, 12, 25, 38, 41]);
  });

  it("reads the next window while the one before commits, and begins its unit only once that commit settled", async () => {
    const target = new MemoryTarget();
    const rows = source(rowsAt(5, 15, 25));
    const log: string[] = [];
    const begin = target.begin.bind(target);
    target.begin = async (ref, options) => {
      const unit = await begin(ref, options);
      log.push(`begin ${rows.reads.length}`);
      return {
        ...unit,
        commit: async () => {
          log.push(`commit ${rows.reads.length}`);
          // Slow enough for the next read to start meanwhile.
          await new Promise((resolve) => setTimeout(resolve, 5));
          await unit.commit();
          log.push(`committed ${rows.reads.length}`);
        },
      };
    };
    const run = await runMemoryTable(rows, target, { ...windowed, cursorEnd: "30" });
    expect(run.result).toMatchObject({ status: "loaded", rows: 3, windows: 3 });
    // `begin n`: n windows' reads had started. Each window after the first was being read by the
    // time the one before committed, and its unit began only after that commit.
    expect(log).toEqual([
      "begin 1",
      "commit 2",
      "committed 2",
      "begin 2",
      "commit 3",
      "committed 3",
      "begin 3",
      "commit 3",
      "committed 3",
    ]);
    expect(landed(target)).toEqual([5, 15, 25]);
    expect(ends(target)).toEqual(["10", "20", "30"]);
  });

  it("closes the read begun during a commit that fails, and reports the commit's failure", async () => {
    const all = source(rowsAt(5, 15, 25, 35, 45));
    const reader = await all.openTable();
    let closed = 0;
    const rows = source(rowsAt(5, 15, 25, 35, 45), {
      script: async function* (request) {
        try {
          yield* reader.read(request);
        } finally {
          closed++;
        }
      },
    });
    const target = new MemoryTarget();
    target.failures = [{ op: "commit", nth: 2, error: new SqlloadError("SL305", "the warehouse went away") }];
    const failed = await runMemoryTable(rows, target, windowed);
    expect(failed.result).toMatchObject({ status: "failed", rows: 1, windows: 1 });
    expect(failed.result.error?.message).toContain("the warehouse went away");
    expect(rows.reads.map((r) => r.window?.index)).toEqual([0, 1, 2]);
    expect(closed).toBe(3);
    expect(landed(target)).toEqual([5]);
  });

  it("a commit that fails while the source is asked for the next window fails the table, not the process", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const rows = source(rowsAt(5, 15, 25), { capabilities: { firstCursorLookup: true } });
      const open = rows.openTable.bind(rows);
      rows.openTable = async () => {
        const reader = await open();
        const lookup = reader.firstCursorAtOrAfter!.bind(reader);
        // A real source answers after a round trip, not within the same turn of the event loop.
        reader.firstCursorAtOrAfter = async (value) => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          return lookup(value);
        };
        return reader;
      };
      const target = new MemoryTarget();
      target.failures = [{ op: "commit", nth: 1, error: new SqlloadError("SL305", "commit refused") }];
      const run = await runMemoryTable(rows, target, { ...windowed, cursorEnd: "30" });
      expect(run.result.status).toBe("failed");
      expect(run.result.error?.message).toContain("commit refused");
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("reports a failed commit, not the read that failed while it ran", async () => {
    let reads = 0;
    const rows = source([], {
      script: async function* () {
        if (++reads === 2) throw new Error("source connection reset");
        yield { kind: "batch", batch: batchFromRows(columns, rowsAt(5)) };
      },
    });
    const target = new MemoryTarget();
    const begin = target.begin.bind(target);
    target.begin = async (ref, options) => {
      const unit = await begin(ref, options);
      return {
        ...unit,
        commit: async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          await unit.commit();
        },
      };
    };
    target.failures = [{ op: "commit", nth: 1, error: new SqlloadError("SL305", "commit refused") }];
    const run = await runMemoryTable(rows, target, { ...windowed, cursorEnd: "30" });
    expect(run.result.error?.message).toContain("commit refused");
  });

  it("records the state a window ended with, whatever the next window's read does to it meanwhile", async () => {
    const rows = source([], {
      loggedState: true,
      script: async function* (request) {
        const w = request.window?.index ?? 0;
        const state = request.state as { page: number } | undefined;
        // A table function moving its position in place, before its first rows.
        if (state) state.page = 100 + w;
        yield { kind: "batch", batch: batchFromRows(columns, rowsAt(w * 10 + 5)) };
        yield { kind: "checkpoint", state: { page: w + 1 } };
      },
    });
    const target = new MemoryTarget({ commitGuard: true });
    const begin = target.begin.bind(target);
    target.begin = async (ref, options) => {
      const unit = await begin(ref, options);
      const own = unit.runLogOfRun!.bind(unit);
      // The guard's read of the run log takes a round trip, as on a real target.
      return {
        ...unit,
        runLogOfRun: async (runId: string) => {
          await new Promise((resolve) => setTimeout(resolve, 10));
          return own(runId);
        },
      };
    };
    await runMemoryTable(rows, target, { ...windowed, cursorEnd: "30", writeStrategy: "append" });
    const ended = records(target).filter((r) => r.windowEnd);
    expect(ended.map((r) => [r.windowEnd && cursorToString(r.windowEnd), r.state])).toEqual([
      ["10", { page: 1 }],
      ["20", { page: 2 }],
      ["30", { page: 3 }],
    ]);
  });

  it("moves at most max_windows_per_run windows a run, and resumes at the logged window end", async () => {
    const target = new MemoryTarget();
    const rows = source(rowsAt(5, 15, 25));
    const settings = { ...windowed, cursorEnd: "30", maxWindowsPerRun: 1 };
    const runs = [];
    for (let i = 0; i < 4; i++) runs.push(await runMemoryTable(rows, target, settings, { runId: `run-${i}` }));
    expect(runs.map((r) => r.result.caughtUp)).toEqual([false, false, true, true]);
    expect(runs.map((r) => r.result.rows)).toEqual([1, 1, 1, 0]);
    expect(rows.reads.map((r) => r.range.from && cursorToString(r.range.from))).toEqual(["0", "10", "20"]);
    expect(landed(target)).toEqual([5, 15, 25]);
  });

  it("never commits a window twice when one run is executed again (a queue job taken over), where the target can check", async () => {
    const rows = source(rowsAt(5, 15, 25));
    const settings = { ...windowed, cursorEnd: "30", writeStrategy: "append" as const };
    const flags = { startCursor: "0", endCursor: "30" };
    for (const commitGuard of [true, false]) {
      const target = new MemoryTarget({ commitGuard });
      await runMemoryTable(rows, target, settings, { runId: "job-7", flags });
      // The same run again over the same range: under append, without the guard its rows land twice.
      const again = await runMemoryTable(rows, target, settings, { runId: "job-7", flags });
      if (commitGuard) {
        expect(landed(target)).toEqual([5, 15, 25]);
        expect(again.of("window_committed")).toHaveLength(0);
        expect(again.of("table_warning").map((w) => w.message)).toEqual([
          "run job-7 already committed the window ending 10: not committed again",
          "run job-7 already committed the window ending 20: not committed again",
          "run job-7 already committed the window ending 30: not committed again",
        ]);
        expect(records(target)).toHaveLength(3);
      } else {
        expect(landed(target)).toEqual([5, 5, 15, 15, 25, 25]);
      }
    }
  });

  it("under merge, forgets the keys of a window it skipped as already committed", async () => {
    // Row 1 moved from cursor 5 to 15 between the windows: one key in two windows is an update.
    const rows = source([5, 15].map((k) => ({ id: 1n, k: BigInt(k) })));
    const settings = { ...windowed, cursorEnd: "20", writeStrategy: "merge" as const, primaryKey: ["id"] };
    const flags = { startCursor: "0", endCursor: "20" };
    const target = new MemoryTarget({ commitGuard: true });
    target.failures = [{ op: "commit", nth: 2 }];
    expect((await runMemoryTable(rows, target, settings, { runId: "job-7", flags })).result.status).toBe("failed");
    target.failures = [];
    const again = await runMemoryTable(rows, target, settings, { runId: "job-7", flags });
    expect(again.result).toMatchObject({ status: "loaded", rows: 1 });
    expect(landed(target)).toEqual([15]);
  });

  it("keeps the windows before a failure, and the next run resumes at the failed window", async () => {
    const target = new MemoryTarget();
    const rows = source(rowsAt(5, 15, 25, 35, 45));
    target.failures = [{ op: "commit", nth: 3 }];
    const failed = await runMemoryTable(rows, target, windowed);
    expect(failed.result).toMatchObject({ status: "failed", rows: 2, windows: 2 });
    expect(failed.result.error?.code).toBe("SL305");
    expect(landed(target)).toEqual([5, 15]);
    target.failures = [];
    // The fourth window's read had begun while the third committed; nothing of it was written.
    expect(rows.reads.map((r) => r.window?.index)).toEqual([0, 1, 2, 3]);
    const again = await runMemoryTable(rows, target, windowed, { runId: "run-2" });
    expect(again.result).toMatchObject({ status: "loaded", rows: 3, caughtUp: true });
    expect(rows.reads.slice(4).map((r) => r.window?.index)).toEqual([0, 1, 2]);
    expect(landed(target)).toEqual([5, 15, 25, 35, 45]);
  });

  it("rebuilds a windowed table in one unit under --reload", async () => {
    const target = new MemoryTarget();
    const rows = source(rowsAt(5, 15));
    await runMemoryTable(rows, target, windowed);
    const reload = await runMemoryTable(rows, target, windowed, { flags: { reload: true } });
    expect(reload.result).toMatchObject({ status: "loaded", rows: 2 });
    expect(reload.of("window_committed")).toHaveLength(1);
    expect(landed(target)).toEqual([5, 15]);
  });
});

/** A source script yielding items one by one, for checkpoints and interruptions. */
function scripted(items: (request: ReadRequest) => AsyncIterable<SourceItem>, extra: Partial<MemorySourceOptions> = {}) {
  return new MemorySource({ columns, rows: [], script: items, ...extra });
}
const batch = (...ks: number[]): SourceItem => ({ kind: "batch", batch: batchFromRows(columns, rowsAt(...ks)) });

describe("runTable: logged state", () => {
  /** A logged table of numbered pages: `perRun` a run, each followed by a checkpoint at its number. */
  const checkpointed = (perRun: number) =>
    scripted(
      async function* (request) {
        const start = (request.state as number | undefined) ?? 0;
        for (let k = 1; k <= perRun; k++) {
          yield batch(start + k);
          yield { kind: "checkpoint", state: start + k };
        }
      },
      { loggedState: true },
    );

  it("commits at every checkpoint with its state, and hands the last committed state to the next run", async () => {
    const target = new MemoryTarget();
    const pages = checkpointed(2);
    const settings = { writeStrategy: "append" as const, cursorColumn: undefined };
    const first = await runMemoryTable(pages, target, settings);
    expect(first.result).toMatchObject({ status: "loaded", rows: 2 });
    // One record per checkpoint; the empty tail after the last changes nothing and writes none.
    expect(records(target).map((r) => r.state)).toEqual([1, 2]);
    await runMemoryTable(pages, target, settings, { runId: "run-2" });
    expect(pages.reads[1]?.state).toBe(2);
    expect(landed(target)).toEqual([1, 2, 3, 4]);
  });

  it("marks the records of a run that found nothing blocking the table, and not those of a --reload, which does not look", async () => {
    const target = new MemoryTarget();
    const pages = checkpointed(1);
    const settings = { writeStrategy: "append" as const, cursorColumn: undefined };
    await runMemoryTable(pages, target, settings);
    await runMemoryTable(pages, target, settings, { runId: "run-2", flags: { reload: true } });
    expect(records(target).map((r) => [r.runId, r.unblocked])).toEqual([
      ["run-1", true],
      ["run-2", undefined],
    ]);
  });

  it("lets the data win when a logged table's log and data disagree, appending a visible reconcile record", async () => {
    const target = new MemoryTarget();
    const pages = scripted(
      async function* (request) {
        const from = request.range.from ? Number((request.range.from as { value: bigint }).value) : 0;
        yield batch(from + 1, from + 2);
        yield { kind: "checkpoint", state: `page-${from + 2}` };
      },
      { loggedState: true, cursorColumn: "k" },
    );
    await runMemoryTable(pages, target, { writeStrategy: "append" });
    expect(records(target).at(-1)).toMatchObject({ state: "page-2", cursor: { kind: "integer", value: 2n } });
    // Rows changed by hand: the log's cursor no longer matches the data's maximum.
    target.rows(TARGET_REF).pop();
    const run = await runMemoryTable(pages, target, { writeStrategy: "append" }, { runId: "run-2" });
    expect(run.of("table_reconciled")).toHaveLength(1);
    expect(pages.reads[1]?.state).toBeUndefined();
    expect(records(target).map((r) => r.event)).toEqual(["run", "reconcile", "run"]);
  });

  it("refuses a checkpoint from a table that keeps no logged state", async () => {
    const target = new MemoryTarget();
    const stray = scripted(async function* () {
      yield batch(1);
      yield { kind: "checkpoint", state: "x" };
    });
    const run = await runMemoryTable(stray, target, { writeStrategy: "append", cursorColumn: undefined });
    expect(run.result.status).toBe("failed");
    expect(run.result.error?.code).toBe("SL501");
    expect(landed(target)).toEqual([]);
  });

  it("refuses a logged table on a target that commits its log after the data", async () => {
    const target = new MemoryTarget({ commitModel: "data-then-log", loggedTablesSetting: "catalog_managed_commits" });
    const logged = scripted(async function* () {}, { loggedState: true });
    const run = await runMemoryTable(logged, target, { writeStrategy: "append", cursorColumn: undefined });
    expect(run.result.error?.code).toBe("SL116");
    expect(run.result.error?.hint).toContain("catalog_managed_commits");
    expect(logged.reads).toHaveLength(0);
  });
});

describe("runTable: interruption and refusals", () => {
  it("stops the read in flight when interrupted, rolling its unit back", async () => {
    const target = new MemoryTarget();
    const controller = new AbortController();
    const slow = scripted(async function* () {
      yield batch(1);
      controller.abort();
      await new Promise(() => {});
    });
    const run = await runMemoryTable(slow, target, {}, { signal: controller.signal });
    expect(run.result).toMatchObject({ status: "failed", rows: 0 });
    expect(run.result.error?.code).toBe("SL307");
    expect(landed(target)).toEqual([]);
    expect(target.runLog).toHaveLength(0);
  });

  it("refuses a strategy the target does not support before reading", async () => {
    const target = new MemoryTarget({ writeStrategies: ["append", "delete_insert"] });
    const rows = source(rowsAt(1));
    const run = await runMemoryTable(rows, target, { writeStrategy: "merge", primaryKey: ["id"] });
    expect(run.result.error?.code).toBe("SL212");
    expect(run.result.error?.message).toContain("append, delete_insert");
    expect(rows.reads).toHaveLength(0);
  });

  it("skips, rather than fails, a table whose retryable failure came before any commit", async () => {
    const refused = () => new SqlloadError("SL308", "target refused the connection", { retryable: true });
    const target = new MemoryTarget();
    target.failures = [{ op: "begin", nth: 1, error: refused() }];
    const early = await runMemoryTable(source(rowsAt(1)), target, {});
    expect(early.result.status).toBe("skipped");
    expect(early.of("table_skipped")).toHaveLength(1);
    // The same failure once a window committed: the table changed, so it failed.
    const later = new MemoryTarget();
    later.failures = [{ op: "begin", nth: 2, error: refused() }];
    const late = await runMemoryTable(source(rowsAt(1, 15)), later, windowed);
    expect(late.result).toMatchObject({ status: "failed", windows: 1 });
    expect(late.of("table_failed")).toHaveLength(1);
  });
});

describe("runTable: staged targets", () => {
  it("publishes a delete_insert table once, at the end of the run", async () => {
    const target = new MemoryTarget({ commitModel: "staged" });
    const run = await runMemoryTable(source(rowsAt(5, 15, 25)), target, windowed);
    expect(run.result).toMatchObject({ status: "loaded", rows: 3 });
    expect(run.of("table_published")).toHaveLength(1);
    expect(target.staged).toHaveLength(0);
    expect(landed(target)).toEqual([5, 15, 25]);
  });

  it("publishes every commit under merge", async () => {
    const target = new MemoryTarget({ commitModel: "staged" });
    const run = await runMemoryTable(source(rowsAt(5, 15)), target, { ...windowed, writeStrategy: "merge", primaryKey: ["id"] });
    expect(run.of("table_published")).toHaveLength(5);
    expect(landed(target)).toEqual([5, 15]);
  });

  it("publishes nothing of a failed run and discards what it staged", async () => {
    const target = new MemoryTarget({ commitModel: "staged" });
    target.failures = [{ op: "commit", nth: 2 }];
    const run = await runMemoryTable(source(rowsAt(5, 15, 25)), target, windowed);
    expect(run.result.status).toBe("failed");
    expect(run.of("table_published")).toHaveLength(0);
    expect(target.staged).toHaveLength(0);
    expect(landed(target)).toEqual([]);
    expect(target.runLog).toHaveLength(0);
  });
});

describe("runTable: no run-log record that changes nothing", () => {
  it("still writes one record for a run that finds nothing new, to mark it", async () => {
    const target = new MemoryTarget();
    const pages = scripted(
      async function* (request) {
        if (request.state === undefined) {
          yield batch(1);
          yield { kind: "checkpoint", state: "done" };
        }
      },
      { loggedState: true },
    );
    const settings = { writeStrategy: "append" as const, cursorColumn: undefined };
    await runMemoryTable(pages, target, settings);
    expect(records(target).map((r) => [r.state, r.rows])).toEqual([["done", 1]]);
    const again = await runMemoryTable(pages, target, settings, { runId: "run-2" });
    expect(again.result).toMatchObject({ status: "loaded", rows: 0, commits: 1 });
    expect(records(target).map((r) => [r.runId, r.rows])).toEqual([
      ["run-1", 1],
      ["run-2", 0],
    ]);
  });
});
