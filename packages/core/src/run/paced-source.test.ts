import { describe, expect, it } from "vitest";
import type { Column } from "../connector/logical-types.js";
import type { ReadRequest, SourceItem } from "../connector/source.js";
import type { RunEvent } from "../events/run-event.js";
import { type Pacing, pacedSource, pacingFor, RunPacing } from "./paced-source.js";
import { RateLimiter } from "./rate-limiter.js";
import { MemorySource } from "./testing/memory-source.js";

const columns: Column[] = [{ name: "k", type: { kind: "int64" }, nullable: false }];
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ k: BigInt(i + 1) }));
const request = (): ReadRequest => ({
  range: {},
  includeNulls: true,
  ordered: false,
  signal: new AbortController().signal,
});
/** A limiter whose clock stands still: each wait is exactly the time booked so far, and short. */
const frozen = (perSecond: number) => new RateLimiter(perSecond, () => 0);

async function readAll(source: MemorySource, pacing: Pacing, req = request()) {
  const events: RunEvent[] = [];
  const paced = pacedSource(source, pacing, "raw.t", (e) => events.push(e));
  const reader = await paced.openTable(source.request(), await paced.describeTable(source.request()));
  const items: SourceItem[] = [];
  for await (const item of reader.read(req)) items.push(item);
  return { items, events, reader };
}

describe("pacedSource: rows_per_second", () => {
  it("waits for the rows already read before pulling more, reporting waits of 50 ms or more", async () => {
    const source = new MemorySource({ columns, rows: rows(3), batchRows: 2 });
    const started = performance.now();
    const { items, events } = await readAll(source, { rows: frozen(20) });
    // 2 rows at 20/s owe 100 ms, then 3 rows owe 150 ms (the clock stands still).
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    expect(items.filter((i) => i.kind === "batch")).toHaveLength(2);
    expect(events).toEqual([
      { type: "rate_limited", table: "raw.t", limit: "rows_per_second", perSecond: 20, waitSeconds: 0.1 },
      { type: "rate_limited", table: "raw.t", limit: "rows_per_second", perSecond: 20, waitSeconds: 0.15 },
    ]);
  });

  it("says nothing about waits too short to note", async () => {
    const source = new MemorySource({ columns, rows: rows(4), batchRows: 2 });
    const { items, events } = await readAll(source, { rows: frozen(1000) });
    expect(items).toHaveLength(2);
    expect(events).toEqual([]);
  });

  it("stops waiting when the read is aborted (SL307)", async () => {
    const source = new MemorySource({ columns, rows: rows(4), batchRows: 2 });
    const controller = new AbortController();
    const req = { ...request(), signal: controller.signal };
    const paced = pacedSource(source, { rows: frozen(0.01) }, "raw.t", () => {});
    const reader = await paced.openTable(source.request(), await paced.describeTable(source.request()));
    const iterator = reader.read(req)[Symbol.asyncIterator]();
    await iterator.next();
    const waiting = iterator.next();
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: "SL307" });
  });
});

describe("pacedSource: requests_per_second", () => {
  it("hands the read a pace() that spaces requests, reporting the long waits", async () => {
    const paces: number[] = [];
    const source = new MemorySource({
      columns,
      rows: [],
      script: async function* (req) {
        for (let i = 0; i < 3; i++) {
          const before = performance.now();
          await req.pace!();
          paces.push(performance.now() - before);
        }
        yield* [];
      },
    });
    const { events } = await readAll(source, { requests: frozen(40) });
    // Slots at 0, 25 and 50 ms: only the 50 ms wait is worth an event.
    expect(paces[2]).toBeGreaterThanOrEqual(45);
    expect(events).toEqual([
      { type: "rate_limited", table: "raw.t", limit: "requests_per_second", perSecond: 40, waitSeconds: 0.05 },
    ]);
  });

  it("gives no pace() when requests are not limited", async () => {
    let pace: unknown = "unset";
    const source = new MemorySource({
      columns,
      rows: [],
      script: async function* (req) {
        pace = req.pace;
        yield* [];
      },
    });
    await readAll(source, { rows: frozen(1000) });
    expect(pace).toBeUndefined();
  });
});

describe("pacedSource: the wrapper", () => {
  it("offers exactly the reader's optional methods", async () => {
    const plain = await readAll(new MemorySource({ columns, rows: [] }), {});
    expect(plain.reader.firstCursorAtOrAfter).toBeUndefined();
    expect(plain.reader.maxCursor).toBeUndefined();
    const lookup = new MemorySource({
      columns,
      rows: rows(3),
      cursorColumn: "k",
      capabilities: { firstCursorLookup: true },
    });
    const { reader } = await readAll(lookup, {});
    expect(await reader.firstCursorAtOrAfter!({ kind: "integer", value: 2n })).toEqual({ kind: "integer", value: 2n });
  });
});

describe("pacingFor and RunPacing", () => {
  it("makes limiters only for the limits set", () => {
    expect(pacingFor(undefined)).toBeUndefined();
    const pacing = pacingFor({ rowsPerSecond: 500 })!;
    expect(pacing.rows?.perSecond).toBe(500);
    expect(pacing.requests).toBeUndefined();
    expect(pacingFor({ requestsPerSecond: 2 })!.requests?.perSecond).toBe(2);
  });

  it("shares a source's limiters among its tables; a table's own limit gets its own", () => {
    const run = new RunPacing([{ name: "api", rateLimit: { requestsPerSecond: 5 } }, { name: "db" }]);
    const a = run.for("api", undefined);
    expect(a?.requests?.perSecond).toBe(5);
    expect(run.for("api", undefined)).toBe(a);
    const own = run.for("api", { requestsPerSecond: 1 });
    expect(own).not.toBe(a);
    expect(own?.requests?.perSecond).toBe(1);
    expect(run.for("db", undefined)).toBeUndefined();
  });
});
