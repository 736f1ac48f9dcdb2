import {
  batchFromRows,
  type Column,
  type CursorKind,
  type CursorValue,
  encodeRunLogRecord,
  integerCursor,
  type TargetTableRef,
  textCursor,
  timestampCursor,
} from "@sqlload/core";
import { BigQueryEmulator } from "@sqlload/testing/emulator/bigquery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BigQueryTarget } from "../src/bigquery-target.js";
import { emulatorOptions, freshTarget, readerFor, readTable } from "./harness.js";

// How new tables are laid out (the definitions sent to `tables.insert`), and how maximum reads
// are bounded so that BigQuery can prune partitions.
describe("BigQuery partitioning and maximum reads (emulator)", () => {
  let emulator: BigQueryEmulator;
  let n = 0;
  const options = (extra: Record<string, unknown> = {}) => emulatorOptions(emulator, extra);
  const columns: Column[] = [
    { name: "id", type: { kind: "int64" }, nullable: false },
    { name: "at", type: { kind: "timestamptz" }, nullable: true },
  ];
  const fresh = (extra: Record<string, unknown> = {}) => freshTarget(options(extra), "part");
  /** The definition the connector sent for table `name` of `dataset` (its last `tables.insert`). */
  const definitionOf = (dataset: string, name: string) =>
    emulator.tableLog
      .filter((t) => {
        const ref = (t as { tableReference?: { datasetId?: string; tableId?: string } }).tableReference;
        return ref?.datasetId === dataset && ref.tableId === name;
      })
      .at(-1);
  const byId = { column: "id", kind: "integer" } as const;
  /** Commits `rows` in one unit (with a run-log record at `logged` when given): by default appended, on the id cursor. */
  const write = async (
    target: BigQueryTarget,
    ref: TargetTableRef,
    rows: Record<string, unknown>[],
    logged?: CursorValue,
    unitOptions: {
      readonly strategy?: "append" | "replace";
      readonly cursor?: { readonly column: string; readonly kind: CursorKind };
      readonly columns?: Column[];
    } = {},
  ) => {
    const { strategy = "append", cursor = byId, columns: cols = columns } = unitOptions;
    const primaryKey = cols.some((c) => c.name === "id") ? ["id"] : undefined;
    const ensured = strategy === "replace" ? cols : await target.ensureTable(ref, cols, { primaryKey, cursor });
    const unit = await target.begin(ref, { strategy, columns: ensured, primaryKey, cursor });
    await unit.write(batchFromRows(cols, rows));
    if (logged) {
      await unit.appendRunLog(
        encodeRunLogRecord({
          runId: `r${++n}`,
          table: `${ref.schema}.t`,
          at: "2026-12-01T00:00:00Z",
          event: "run",
          cursor: logged,
          rows: rows.length,
        }),
      );
    }
    await unit.commit();
  };
  const maxReads = (from: number) =>
    emulator.jobLog
      .slice(from)
      .map((j) => (j as { query?: { query?: string } }).query?.query ?? "")
      .filter((q) => q.startsWith("SELECT CAST(MAX(") || q.startsWith("SELECT UNIX_MICROS("));

  beforeAll(async () => {
    emulator = await BigQueryEmulator.start();
  });
  afterAll(() => emulator.stop());

  it("creates a table on an integer cursor partitioned by integer ranges and clustered on the primary key", async () => {
    const { target, ref } = await fresh({ labels: { team: "data" } });
    await target.ensureTable(ref, columns, { primaryKey: ["id"], cursor: { column: "id", kind: "integer" } });
    expect(definitionOf(ref.schema, "t")).toEqual({
      tableReference: { projectId: "p", datasetId: ref.schema, tableId: "t" },
      schema: {
        fields: [
          { name: "id", type: "INT64", mode: "REQUIRED" },
          { name: "at", type: "TIMESTAMP", mode: "NULLABLE" },
        ],
      },
      rangePartitioning: { field: "id", range: { start: "0", end: "10000000000", interval: "1000000" } },
      clustering: { fields: ["id"] },
      labels: { team: "data" },
    });
  });

  it("takes the ranges from partition_range, partitions a timestamp cursor by DAY, and none with partition_by_cursor = false", async () => {
    const set = await fresh({ partition_range: { start: -1000, end: 99_000, interval: 10 } });
    await set.target.ensureTable(set.ref, columns, { cursor: { column: "id", kind: "integer" } });
    expect(definitionOf(set.ref.schema, "t")).toMatchObject({
      rangePartitioning: { field: "id", range: { start: "-1000", end: "99000", interval: "10" } },
    });
    const timed = await fresh();
    await timed.target.ensureTable(timed.ref, columns, { primaryKey: ["id"], cursor: { column: "at", kind: "timestamp" } });
    const byDay = definitionOf(timed.ref.schema, "t");
    expect(byDay).toMatchObject({ timePartitioning: { type: "DAY", field: "at" }, clustering: { fields: ["id"] } });
    expect(byDay).not.toHaveProperty("rangePartitioning");
    const off = await fresh({ partition_by_cursor: false });
    await off.target.ensureTable(off.ref, columns, { primaryKey: ["id"], cursor: { column: "id", kind: "integer" } });
    const plain = definitionOf(off.ref.schema, "t");
    expect(plain).toMatchObject({ clustering: { fields: ["id"] } });
    expect(Object.keys(plain ?? {}).filter((k) => k.endsWith("Partitioning"))).toEqual([]);
  });

  it("refuses a partition_range BigQuery would refuse before connecting", async () => {
    await expect(fresh({ partition_range: { start: 0, end: 1_000_000, interval: 10 } })).rejects.toMatchObject({
      code: "SL103",
      message: expect.stringContaining("makes 100000 ranges"),
    });
  });

  it("builds a replaced table with ranges chosen from the rows it read, and keeps them on the next replace", async () => {
    const { target, ref } = await fresh();
    const rows = (from: bigint) => Array.from({ length: 20 }, (_, i) => ({ id: from + BigInt(i) * 75_000_000n, at: null }));
    await write(target, ref, rows(5_000_000_123n), undefined, { strategy: "replace" });
    const expected = { field: "id", range: { start: "5000000000", end: "25000000000", interval: "2000000" } };
    expect((await emulator.catalog.requireTable(ref.schema, "t")).rangePartitioning).toEqual(expected);
    // Other rows next time: BigQuery replaces a table only with one partitioned the same way.
    await write(target, ref, rows(1n), undefined, { strategy: "replace" });
    expect((await emulator.catalog.requireTable(ref.schema, "t")).rangePartitioning).toEqual(expected);
    expect((await readTable(readerFor(options()), ref.schema, "t"))?.length).toBe(20);
  });

  /** Ids 10, 20 and 30, committed with a run-log record whose cursor is 30. */
  const loggedAt30 = async () => {
    const fixture = await fresh();
    await write(
      fixture.target,
      fixture.ref,
      [10n, 20n, 30n].map((id) => ({ id, at: null })),
      integerCursor(30),
    );
    return fixture;
  };

  /** What core passes after reading that run log. */
  const logged30 = { atOrAbove: integerCursor(30) };

  it("reads the maximum bounded below by the logged position, as a literal", async () => {
    const { target, ref } = await loggedAt30();
    const before = emulator.jobLog.length;
    expect(await target.maxCursor(ref, "id", "integer", logged30)).toEqual(integerCursor(30));
    expect(maxReads(before)).toEqual([`SELECT CAST(MAX(\`id\`) AS STRING) AS v FROM \`${ref.schema}\`.\`t\` WHERE \`id\` >= 30`]);
    // Rows added by hand above the logged position: the bounded read sees them.
    await emulator.database.query(`INSERT INTO "${ref.schema}"."t" VALUES (9007199254740993, NULL)`);
    const again = emulator.jobLog.length;
    expect(await target.maxCursor(ref, "id", "integer", logged30)).toEqual(integerCursor(9007199254740993n));
    expect(maxReads(again)).toHaveLength(1);
  });

  it("falls back to an unbounded read when nothing lies at or above the logged position: the data wins", async () => {
    const { target, ref } = await loggedAt30();
    await emulator.database.query(`DELETE FROM "${ref.schema}"."t" WHERE id >= 20`);
    const before = emulator.jobLog.length;
    expect(await target.maxCursor(ref, "id", "integer", logged30)).toEqual(integerCursor(10));
    const table = `\`${ref.schema}\`.\`t\``;
    expect(maxReads(before)).toEqual([
      `SELECT CAST(MAX(\`id\`) AS STRING) AS v FROM ${table} WHERE \`id\` >= 30`,
      `SELECT CAST(MAX(\`id\`) AS STRING) AS v FROM ${table}`,
    ]);
    await emulator.database.query(`DELETE FROM "${ref.schema}"."t"`);
    expect(await target.maxCursor(ref, "id", "integer", logged30)).toBeNull();
  });

  it("bounds a timestamp maximum with a TIMESTAMP literal, and reads unbounded without a logged position", async () => {
    const { target, ref } = await fresh();
    const at = 1_790_000_000_000_001n;
    const cursor = { column: "at", kind: "timestamp" } as const;
    await write(target, ref, [{ id: 1n, at }], undefined, { cursor });
    let before = emulator.jobLog.length;
    expect(await target.maxCursor(ref, "at", "timestamp")).toEqual(timestampCursor(at));
    expect(maxReads(before)).toEqual([`SELECT UNIX_MICROS(MAX(\`at\`)) AS v FROM \`${ref.schema}\`.\`t\``]);
    await write(target, ref, [], timestampCursor(at), { cursor });
    before = emulator.jobLog.length;
    expect(await target.maxCursor(ref, "at", "timestamp", { atOrAbove: timestampCursor(at) })).toEqual(timestampCursor(at));
    expect(maxReads(before)).toEqual([
      `SELECT UNIX_MICROS(MAX(\`at\`)) AS v FROM \`${ref.schema}\`.\`t\` WHERE \`at\` >= TIMESTAMP '2026-09-21 14:13:20.000001+00'`,
    ]);
  });

  it("reads a text maximum unbounded, by code point, whatever the log says: no partitioning prunes text", async () => {
    const { target, ref } = await fresh();
    const text: Column[] = [{ name: "k", type: { kind: "text" }, nullable: false }];
    const cursor = { column: "k", kind: "text" } as const;
    await write(target, ref, [{ k: "B" }, { k: "a" }], textCursor("a"), { cursor, columns: text });
    const before = emulator.jobLog.length;
    expect(await target.maxCursor(ref, "k", "text", { atOrAbove: textCursor("a") })).toEqual(textCursor("a"));
    const queries = emulator.jobLog.slice(before).map((j) => (j as { query?: { query?: string } }).query?.query);
    expect(queries).toEqual([`SELECT CAST(MAX(CAST(\`k\` AS BYTES)) AS STRING) AS v FROM \`${ref.schema}\`.\`t\``]);
  });
});
