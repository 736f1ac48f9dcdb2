import { batchFromRows, type Column, integerCursor, textCursor } from "@sqlload/core";
import { requestMatching } from "@sqlload/testing/emulator";
import { BigQueryEmulator } from "@sqlload/testing/emulator/bigquery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auxPrefix } from "../src/bigquery-stage.js";
import { BigQueryTarget } from "../src/bigquery-target.js";
import { emulatorOptions, freshTarget, openTarget, readerFor, readTable } from "./harness.js";

// What the conformance suite does not cover: BigQuery's retries, stages, collations, settings.
describe("BigQuery target against the emulator", () => {
  let emulator: BigQueryEmulator;
  const options = (extra: Record<string, unknown> = {}) =>
    emulatorOptions(emulator, { labels: { team: "data" }, maximum_bytes_billed: 1000000, ...extra });
  const columns: Column[] = [
    { name: "id", type: { kind: "int64" }, nullable: false },
    { name: "c", type: { kind: "text" }, nullable: true },
  ];
  const fresh = (extra: Record<string, unknown> = {}) => freshTarget(options(extra), "ds");
  const commit = async (target: BigQueryTarget, ref: { schema: string; name: string }, rows: Record<string, unknown>[]) => {
    const ensured = await target.ensureTable(ref, columns, { primaryKey: ["id"], cursor: { column: "id", kind: "integer" } });
    const unit = await target.begin(ref, { strategy: "append", columns: ensured });
    await unit.write(batchFromRows(columns, rows));
    await unit.commit();
  };
  /** The operations of the requests `work` made, in order. */
  const requests = async (work: () => Promise<unknown>) => {
    const from = emulator.failures.requests.length;
    await work();
    return emulator.failures.requests.slice(from).map((r) => r.operation);
  };
  beforeAll(async () => {
    emulator = await BigQueryEmulator.start();
  });
  afterAll(() => emulator.stop());

  it("runs a commit script again after rateLimitExceeded and a concurrent-update abort, as a new job", async () => {
    const { target, ref } = await fresh();
    const script = requestMatching({ operation: "jobs.insert", shape: "insert_select" });
    emulator.failures.failNext(script, "Exceeded rate limits: too many table update operations", { reason: "rateLimitExceeded" });
    emulator.failures.failNext(script, "Transaction is aborted due to concurrent update against table p:ds.t", {
      reason: "invalidQuery",
    });
    const before = emulator.failures.requests.length;
    await commit(target, ref, [{ id: 1n, c: "a" }]);
    const attempts = emulator.failures.requests.slice(before).filter(script);
    expect(attempts).toHaveLength(3);
    expect(await readTable(readerFor(options()), ref.schema, "t")).toEqual([{ id: 1n, c: "a" }]);
  });

  it("commits once when the answer to the commit script is lost: the retry finds the job by its id", async () => {
    const { target, ref } = await fresh();
    const record = { runId: "r1", table: `${ref.schema}.t`, at: "2026-10-12T16:00:00Z", formatVersion: 1, body: "{}" };
    const ensured = await target.ensureTable(ref, columns, {});
    const unit = await target.begin(ref, { strategy: "append", columns: ensured });
    await unit.write(batchFromRows(columns, [{ id: 1n, c: "a" }]));
    await unit.appendRunLog(record);
    const script = requestMatching({ operation: "jobs.insert", shape: "insert_select" });
    emulator.loseNextAnswer(script);
    const before = emulator.failures.requests.length;
    await unit.commit();
    expect(emulator.failures.requests.slice(before).filter(script)).toHaveLength(2);
    expect(await readTable(readerFor(options()), ref.schema, "t")).toEqual([{ id: 1n, c: "a" }]);
    expect(await target.readRunLog(ref)).toEqual([record]);
  });

  it("loads a unit larger than its buffer in several load jobs into one stage, committed by one script", async () => {
    const { target: inner, ref, schema } = await fresh();
    const target = new BigQueryTarget(inner.jobs, { labels: { team: "data" }, flushBytes: 300 });
    const ensured = await target.ensureTable(ref, columns, {});
    const before = emulator.failures.requests.length;
    const unit = await target.begin(ref, { strategy: "append", columns: ensured });
    for (let b = 0; b < 5; b++) {
      await unit.write(
        batchFromRows(
          columns,
          Array.from({ length: 10 }, (_, i) => ({ id: BigInt(b * 10 + i), c: "x".repeat(5) })),
        ),
      );
    }
    await unit.commit();
    const requests = emulator.failures.requests.slice(before);
    expect(requests.filter((r) => r.operation === "upload").length).toBeGreaterThan(2);
    expect(requests.filter((r) => r.shapes.includes("insert_select"))).toHaveLength(1);
    expect((await readTable(readerFor(options()), schema, "t"))?.length).toBe(50);
  });

  it("replaces a table with a build partitioned as the table is, which BigQuery requires of CREATE OR REPLACE", async () => {
    const timed: Column[] = [
      { name: "id", type: { kind: "int64" }, nullable: false },
      { name: "at", type: { kind: "timestamptz" }, nullable: true },
    ];
    for (const [created, replacing] of [
      [{ column: "at", kind: "timestamp" }, undefined],
      [undefined, { column: "at", kind: "timestamp" }],
    ] as const) {
      const { target, ref, schema } = await fresh();
      await target.ensureTable(ref, timed, { cursor: created });
      const unit = await target.begin(ref, { strategy: "replace", columns: timed, cursor: replacing });
      await unit.write(batchFromRows(timed, [{ id: 1n, at: "2026-10-12T16:00:00Z" }]));
      await unit.commit();
      const table = await emulator.catalog.requireTable(schema, "t");
      expect(table.timePartitioning).toEqual(created ? { type: "DAY", field: "at" } : undefined);
      expect(await readTable(readerFor(options()), schema, "t")).toEqual([{ id: 1n, at: 1_791_820_800_000_000n }]);
    }
  });

  it("fails for good on an invalid job, lands nothing and drops its stage", async () => {
    const { target, ref, schema } = await fresh();
    emulator.failures.failNext(requestMatching({ operation: "jobs.insert", shape: "insert_select" }), "Invalid value", {
      reason: "invalid",
    });
    await expect(commit(target, ref, [{ id: 1n, c: "a" }])).rejects.toMatchObject({ code: "SL300", retryable: false });
    expect(await readTable(readerFor(options()), schema, "t")).toEqual([]);
    expect((await emulator.catalog.list(schema)).map((t) => t.tableReference.tableId).sort()).toEqual([
      "_sqlload_locks",
      "_sqlload_runs",
      "t",
    ]);
  });

  it("stages rows in a table that expires on its own, while the script runs", async () => {
    const { target, ref, schema } = await fresh();
    const held = emulator.failures.holdNext(requestMatching({ operation: "jobs.insert", shape: "insert_select" }));
    const done = commit(target, ref, [{ id: 1n, c: "a" }]);
    await held;
    const stage = (await emulator.catalog.list(schema)).find((t) => t.tableReference.tableId.startsWith("_sqlload_stage_"));
    expect(Number(stage?.expirationTime)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    expect(stage?.labels).toEqual({ team: "data" });
    emulator.failures.releaseHeld();
    await done;
    expect((await emulator.catalog.list(schema)).some((t) => t.tableReference.tableId.startsWith("_sqlload_stage_"))).toBe(false);
    const script = emulator.jobLog.at(-1) as { query: { maximumBytesBilled?: string }; labels: unknown };
    expect(script).toMatchObject({ query: { maximumBytesBilled: "1000000" }, labels: { team: "data" } });
  });

  it("compares text by code point under an und:ci collation, and says so in plan notes", async () => {
    const { target, ref, schema } = await fresh();
    await target.ensureTable({ schema, name: "seed" }, columns, {}); // creates the dataset
    await emulator.catalog.create("p", schema, {
      tableReference: { projectId: "p", datasetId: schema, tableId: "t" },
      schema: {
        fields: [
          { name: "id", type: "INT64", mode: "REQUIRED" },
          { name: "c", type: "STRING", mode: "NULLABLE", collation: "und:ci" },
        ],
      },
    });
    await commit(target, ref, [
      { id: 1n, c: "B" },
      { id: 2n, c: "a" },
      { id: 3n, c: "A" },
    ]);
    expect(await target.maxCursor(ref, "c", "text")).toEqual(textCursor("a"));
    const unit = await target.begin(ref, { strategy: "delete_insert", columns, cursor: { column: "c", kind: "text" } });
    // From 'a' by code point is 'a' alone; under the collation 'A' and 'B' would sort at or after it too.
    await unit.deleteRange({ from: textCursor("a") });
    await unit.commit();
    const left = (await readTable(readerFor(options()), schema, "t"))?.map((r) => r.c).sort();
    expect(left).toEqual(["A", "B"]);
    // The emulator does not model BigQuery's bytes: its dry runs validate the statement and report 0.
    const before = emulator.jobLog.length;
    const cursor = { column: "c", kind: "text" } as const;
    const range = { from: textCursor("a") };
    expect(await target.planNotes(ref, { cursor, range, strategy: "delete_insert" })).toEqual([
      `collation: the cursor column "c" sets 'und:ci'; sqlload compares cursors by code point`,
      "the range delete scans 0 bytes",
    ]);
    expect(emulator.jobLog.slice(before).at(-1)).toMatchObject({
      dryRun: true,
      query: { query: expect.stringContaining("CAST(`c` AS BYTES) >= CAST('a' AS BYTES)") },
    });
    // Only delete_insert deletes a range, and not when the run rebuilds the table: no note, no dry run.
    const collationOnly = [`collation: the cursor column "c" sets 'und:ci'; sqlload compares cursors by code point`];
    const dryRuns = emulator.jobLog.length;
    for (const context of [
      { strategy: "merge" as const },
      { strategy: "append" as const },
      { strategy: "delete_insert" as const, rebuild: true },
    ]) {
      expect(await target.planNotes(ref, { cursor, range, ...context })).toEqual(collationOnly);
    }
    expect(emulator.jobLog.length).toBe(dryRuns);
  });

  it("lands the target's schema in `dataset` when set, other schemas in datasets of their own name", async () => {
    const target = await openTarget(options({ dataset: "analytics" }), "raw");
    await commit(target, { schema: "raw", name: "t" }, [{ id: 5n, c: "x" }]);
    expect(await readTable(readerFor(options()), "analytics", "t")).toEqual([{ id: 5n, c: "x" }]);
    expect(emulator.catalog.dataset("raw")).toBeUndefined();
    expect(await target.maxCursor({ schema: "raw", name: "t" }, "id", "integer")).toEqual(integerCursor(5));
  });

  it("drops the stages and builds a killed run of the table left when it takes the lock, and no other table's", async () => {
    const { target, ref, schema } = await fresh();
    await commit(target, ref, [{ id: 1n, c: "a" }]);
    const leftover = (name: string) =>
      emulator.catalog.create("p", schema, {
        tableReference: { projectId: "p", datasetId: schema, tableId: name },
        schema: { fields: [{ name: "id", type: "INT64" }] },
      });
    await leftover(`${auxPrefix("stage", "t")}dead01`);
    await leftover(`${auxPrefix("build", "t")}dead02`);
    await leftover(`${auxPrefix("stage", "other")}live03`);
    const lock = await target.lockTable(ref);
    await lock.release();
    const names = (await emulator.catalog.list(schema)).map((t) => t.tableReference.tableId).sort();
    expect(names).toEqual(["_sqlload_locks", "_sqlload_runs", `${auxPrefix("stage", "other")}live03`, "t"].sort());
  });

  it("takes a lock in one job and one listing, finds an up-to-date table from one read, and reads the log at once", async () => {
    const { target, ref } = await fresh();
    await commit(target, ref, [{ id: 1n, c: "a" }]);
    // Each job is a request to start it and one for its results: every one costs a round trip.
    const locking = await requests(async () => (await target.lockTable(ref)).release());
    expect(locking.filter((o) => o === "jobs.insert")).toHaveLength(2); // take, release
    expect(locking.filter((o) => o === "tables.list")).toHaveLength(1);
    const ensuring = await requests(() =>
      target.ensureTable(ref, columns, { primaryKey: ["id"], cursor: { column: "id", kind: "integer" } }),
    );
    expect(ensuring.filter((o) => o === "tables.get")).toHaveLength(1);
    // The lock prepared the dataset, its run log included: the log is read at once.
    expect(await requests(() => target.readRunLog(ref, { last: 100 }))).not.toContain("tables.get");
  });

  it("reads a run log deleted since the connection prepared its dataset as none, and creates it again for the next commit", async () => {
    const { target, ref, schema } = await fresh();
    await (await target.lockTable(ref)).release();
    const record = { runId: "r1", table: `${ref.schema}.t`, at: "2026-10-12T16:00:00Z", formatVersion: 1, body: "{}" };
    await emulator.catalog.drop(schema, "_sqlload_runs");
    expect(await target.readRunLog(ref, { last: 100 })).toEqual([]);
    const ensured = await target.ensureTable(ref, columns, {});
    const unit = await target.begin(ref, { strategy: "append", columns: ensured });
    await unit.write(batchFromRows(columns, [{ id: 1n, c: "a" }]));
    await unit.appendRunLog(record);
    await unit.commit();
    expect(await target.readRunLog(ref)).toEqual([record]);
  });

  it("reads a locked table's metadata once for a load's maximum, ensureTable and units; again after its own DDL, and unlocked", async () => {
    const { target, ref } = await fresh();
    await commit(target, ref, [{ id: 1n, c: "a" }]);
    // The dataset is prepared (cached) already: every tables.get is of the table itself.
    const gets = async (work: () => Promise<unknown>) => (await requests(work)).filter((o) => o === "tables.get").length;
    const load = async (extra: Column[] = []) => {
      await target.describeTable(ref);
      await target.maxCursor(ref, "id", "integer");
      const ensured = await target.ensureTable(ref, [...columns, ...extra], {});
      const unit = await target.begin(ref, { strategy: "append", columns: ensured });
      await unit.write(batchFromRows(columns, [{ id: 2n, c: "b" }]));
      await unit.commit();
      return ensured;
    };
    const lock = await target.lockTable(ref);
    expect(await gets(() => load())).toBe(1);
    // A column added by ensureTable: the table is read again, once, and the unit sees the column.
    let ensured: readonly Column[] = [];
    expect(await gets(async () => (ensured = await load([{ name: "d", type: { kind: "text" }, nullable: true }])))).toBe(2);
    expect(ensured.map((c) => c.name)).toEqual(["id", "c", "d"]);
    await lock.release();
    expect(await gets(() => load())).toBe(4);
  });

  it("gives a table's lock to exactly one of two runs racing for it", async () => {
    const { target, ref } = await fresh();
    await target.ensureTable(ref, columns, {});
    const other = await openTarget(options(), ref.schema);
    const results = await Promise.allSettled([target.lockTable(ref), other.lockTable(ref)]);
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { code: "SL306" } });
    await (won[0] as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
  });

  it("refuses a second lock on a table (SL306) until released; a killed run's lock expires", async () => {
    const { target, ref } = await fresh({ lock_ttl: 1 });
    const other = await openTarget(options({ lock_ttl: 1 }), ref.schema);
    const lock = await target.lockTable(ref);
    await expect(other.lockTable(ref)).rejects.toMatchObject({ code: "SL306", retryable: true });
    await lock.release();
    await (await other.lockTable(ref)).release();
    // The row of a killed run: nobody renews it.
    await emulator.database.query(
      `INSERT INTO "${ref.schema}"."_sqlload_locks" VALUES ('t', 'killed', current_timestamp + INTERVAL 1 SECOND)`,
    );
    await expect(other.lockTable(ref)).rejects.toMatchObject({ code: "SL306" });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await (await other.lockTable(ref)).release();
  });
});
