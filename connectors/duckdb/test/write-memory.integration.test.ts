import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Column, isSqlloadError, type RecordBatch } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { DuckDBInstance } from "../src/duckdb-client.js";
import { col, load, projectFiles, t } from "./harness.js";

// DuckDB reads long text 2,048 values at a time, in memory it cannot spill, and keeps a vector of
// wide rows and a block of every column pinned until a commit (duckdb-write-memory.ts). Each case
// here failed under the target's default limit of 256 MB before it was raised for them.

const { dir, openTarget, query } = projectFiles();

const docs = [col("id", t("int64")), col("doc", t("text"))];
const ref = { schema: "raw", name: "docs" };

/** `count` rows from `from`, each `doc` `size` characters, in batches of 100. */
function docBatches(from: number, count: number, size: number): RecordBatch[] {
  const out: RecordBatch[] = [];
  for (let start = from; start < from + count; start += 100) {
    const length = Math.min(100, from + count - start);
    out.push({
      schema: docs,
      length,
      columns: [
        { values: BigInt64Array.from({ length }, (_, i) => BigInt(start + i)) },
        { values: Array.from({ length }, (_, i) => `${start + i}:`.padEnd(size, "x")) },
      ],
    });
  }
  return out;
}

/** The memory_limit of the instance this process has open on `path` (openDatabase shares it), in MB. */
async function limitMB(path: string): Promise<number> {
  const [[value]] = (await query(path, "SELECT current_setting('memory_limit')")) as [[string]];
  const [, number, unit] = /^([\d.]+) (MiB|GiB)$/.exec(value) ?? [];
  return Number(number) * (unit === "GiB" ? 1024 : 1) * 1.048576;
}

describe("long text into a DuckDB target under the default memory_limit", () => {
  it("commits 3,000 values of 100 KB in one unit, the limit raised for them", async () => {
    const target = await openTarget("one-commit.duckdb");
    try {
      expect(await limitMB("one-commit.duckdb")).toBeCloseTo(256, 0);
      await load(target, ref, docs, docBatches(0, 3000, 100_000));
      // Four vectors' worth of the longest value, 4 × 2,048 × 100,000 bytes, and 1.25 MiB a column.
      expect(await limitMB("one-commit.duckdb")).toBeCloseTo(822, 0);
    } finally {
      await target.close();
    }
    expect(await query("one-commit.duckdb", "SELECT count(*), sum(length(doc)), max(id) FROM raw.docs")).toEqual([
      [3000n, 300_000_000n, 2999n],
    ]);
  });

  it("commits such values 1,000 at a time, the next commits reading back none of them", async () => {
    // Under 256 MB the second commit failed: its 1,000 values and the first's filled the limit.
    const path = "several.duckdb";
    const target = await openTarget(path);
    try {
      for (let from = 0; from < 3000; from += 1000) await load(target, ref, docs, docBatches(from, 1000, 100_000));
      // Short rows after them, in one more commit.
      await load(target, ref, docs, docBatches(10_000, 3000, 20));
    } finally {
      await target.close();
    }
    expect(await query(path, "SELECT count(*), count(*) FILTER (WHERE length(doc) = 100000) FROM raw.docs")).toEqual([
      [6000n, 3000n],
    ]);
  });

  it("keeps a limit the target sets, and says which setting to raise when DuckDB runs out of it", async () => {
    const target = await openTarget("fixed.duckdb", { memory_limit: "256MB" });
    try {
      const error = await load(target, ref, docs, docBatches(0, 3000, 100_000)).catch((e: unknown) => e);
      expect(isSqlloadError(error) && [error.code, error.table]).toEqual(["SL305", "raw.docs"]);
      expect((error as { hint?: string }).hint).toMatch(/memory_limit/);
      expect(await limitMB("fixed.duckdb")).toBeCloseTo(256, 0);
    } finally {
      await target.close();
    }
  });

  it("leaves the limit alone for text DuckDB keeps in its row groups", async () => {
    const target = await openTarget("short.duckdb");
    try {
      const wide: Column[] = [col("id", t("int64")), col("a", t("text")), col("b", t("text"))];
      const rows = 2000;
      const text = () => ({ values: Array.from({ length: rows }, (_, i) => `${i}`.padEnd(4000, "y")) });
      await load(target, ref, wide, [
        {
          schema: wide,
          length: rows,
          columns: [{ values: BigInt64Array.from({ length: rows }, (_, i) => BigInt(i)) }, text(), text()],
        },
      ]);
      expect(await limitMB("short.duckdb")).toBeCloseTo(256, 0);
    } finally {
      await target.close();
    }
  });

  it("counts a commit DuckDB made durable before its checkpoint failed as committed, and says why the file is refused after it", async () => {
    // Values of 1 MB, 100 a commit, under a limit the target sets: a checkpoint after a commit
    // fails, and DuckDB refuses the file from then on.
    const path = "invalidated.duckdb";
    const target = await openTarget(path, { memory_limit: "256MB" });
    let committed = 0;
    let failure: unknown;
    try {
      for (let k = 0; k < 10 && !failure; k++) {
        failure = await load(target, ref, docs, docBatches(k * 100, 100, 1_000_000)).catch((e: unknown) => e);
        if (!failure) committed++;
      }
    } finally {
      await target.close();
    }
    expect(isSqlloadError(failure) && [failure.code, failure.table]).toEqual(["SL305", "raw.docs"]);
    expect((failure as { hint?: string }).hint).toMatch(/could not checkpoint.*what was committed is kept/s);
    const again = await openTarget(path, { memory_limit: "4GB" });
    try {
      expect(await query(path, "SELECT count(*) FROM raw.docs")).toEqual([[BigInt(committed * 100)]]);
    } finally {
      await again.close();
    }
  });

  it("measures a list's elements: 3,000 lists holding a value of 100 KB", async () => {
    const lists = [col("id", t("int64")), col("tags", { kind: "list", element: t("text") })];
    const rows = 3000;
    const target = await openTarget("lists.duckdb");
    try {
      const batches: RecordBatch[] = [];
      for (let start = 0; start < rows; start += 100)
        batches.push({
          schema: lists,
          length: 100,
          columns: [
            { values: BigInt64Array.from({ length: 100 }, (_, i) => BigInt(start + i)) },
            { values: Array.from({ length: 100 }, (_, i) => [`${start + i}:`.padEnd(100_000, "x")]) },
          ],
        });
      await load(target, { schema: "raw", name: "lists" }, lists, batches);
    } finally {
      await target.close();
    }
    expect(await query("lists.duckdb", "SELECT count(*), sum(length(tags[1])) FROM raw.lists")).toEqual([[3000n, 300_000_000n]]);
  });

  it("checkpoints long values a killed run left in the write-ahead log before the next run writes", async () => {
    // A file whose last commit is only in its log, as a run killed before the checkpoint leaves it.
    const path = "left-in-log.duckdb";
    const file = join(dir(), path);
    const killed = await DuckDBInstance.create(file, { checkpoint_threshold: "100GB" });
    const connection = await killed.connect();
    await connection.run("PRAGMA disable_checkpoint_on_shutdown");
    await connection.run("CREATE SCHEMA raw; CREATE TABLE raw.docs (id BIGINT, doc VARCHAR)");
    await connection.run("INSERT INTO raw.docs SELECT range, repeat('x', 100000) FROM range(2000)");
    connection.closeSync();
    killed.closeSync();
    expect(existsSync(`${file}.wal`)).toBe(true);

    const target = await openTarget(path);
    try {
      expect(existsSync(`${file}.wal`)).toBe(false);
      expect(await limitMB(path)).toBeCloseTo(256, 0);
      await load(target, ref, docs, docBatches(10_000, 3000, 20));
    } finally {
      await target.close();
    }
    expect(await query(path, "SELECT count(*), count(*) FILTER (WHERE length(doc) = 100000) FROM raw.docs")).toEqual([
      [5000n, 2000n],
    ]);
  });
});

/** `rows` rows of `columns` text columns of `size` characters each, made a batch of 100 at a time. */
function* wideBatches(columns: readonly Column[], rows: number, size: number): Generator<RecordBatch> {
  for (let start = 0; start < rows; start += 100) {
    const length = Math.min(100, rows - start);
    yield {
      schema: columns,
      length,
      columns: columns.map((_, c) => ({
        values: Array.from({ length }, (_, i) => `${start + i}:${c}:`.padEnd(size, "w")),
      })),
    };
  }
}

/** Loads `rows` rows of `count` text columns of `size` characters into `path`, in one commit; the limit it ends at, in MB. */
async function loadWide(path: string, count: number, rows: number, size: number): Promise<number> {
  const columns = Array.from({ length: count }, (_, c) => col(`c${c}`, t("text")));
  const target = await openTarget(path);
  try {
    await load(target, { schema: "raw", name: "wide" }, columns, wideBatches(columns, rows, size));
    return await limitMB(path);
  } finally {
    await target.close();
  }
}

describe("wide rows into a DuckDB target under the default memory_limit", () => {
  it("commits rows of 40 texts of 3,500 characters, each under DuckDB's out-of-line length", async () => {
    expect(await loadWide("forty.duckdb", 40, 3000, 3500)).toBeGreaterThan(298);
    expect(await query("forty.duckdb", "SELECT count(*), sum(length(c39)) FROM raw.wide")).toEqual([[3000n, 3000n * 3500n]]);
  });

  it("commits rows of 1,000 columns", async () => {
    expect(await loadWide("thousand.duckdb", 1000, 3000, 10)).toBeGreaterThan(331);
    expect(await query("thousand.duckdb", "SELECT count(*), count(DISTINCT c999) FROM raw.wide")).toEqual([[3000n, 3000n]]);
  });

  it("appends to a table of 700 columns that holds rows already", async () => {
    // A later commit into a table with rows needed about 1.05 MB a column: this one failed under 640 KB a column.
    const path = "appended.duckdb";
    const columns = Array.from({ length: 700 }, (_, c) => col(`c${c}`, t("int64")));
    const rows = (from: number): RecordBatch[] =>
      Array.from({ length: 30 }, (_, b) => ({
        schema: columns,
        length: 100,
        columns: columns.map((_, c) => ({
          values: BigInt64Array.from({ length: 100 }, (_, i) => BigInt(from + b * 100 + i + c)),
        })),
      }));
    const target = await openTarget(path);
    try {
      await load(target, { schema: "raw", name: "many" }, columns, rows(0));
      await load(target, { schema: "raw", name: "many" }, columns, rows(3000));
    } finally {
      await target.close();
    }
    expect(await query(path, "SELECT count(*), count(DISTINCT c0) FROM raw.many")).toEqual([[6000n, 6000n]]);
  });

  it("counts the table's columns, not only those a batch has", async () => {
    // Batches of 11 of a table's 1,011 columns: the appender fills the other 1,000 with NULLs.
    const path = "narrowed.duckdb";
    const all = Array.from({ length: 1011 }, (_, c) => col(`c${c}`, t("text")));
    const some = all.slice(0, 11);
    const target = await openTarget(path);
    try {
      await load(target, { schema: "raw", name: "narrowed" }, all, wideBatches(all, 1, 1));
      await load(target, { schema: "raw", name: "narrowed" }, some, wideBatches(some, 3000, 10));
      expect(await limitMB(path)).toBeGreaterThan(1000);
    } finally {
      await target.close();
    }
    expect(await query(path, "SELECT count(*), count(c10), count(c11) FROM raw.narrowed")).toEqual([[3001n, 3001n, 1n]]);
  });
});
