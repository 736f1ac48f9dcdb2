import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Column, isSqlloadError, type RecordBatch } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/duckdb-database.js";
import { batch, col, load, projectFiles, t } from "./harness.js";

const { dir, openTarget, query } = projectFiles();

const limitOf = async (path: string) => String((await query(path, "SELECT current_setting('memory_limit')"))[0]?.[0]);

/** Rows per row group of a table, in order. */
async function rowGroups(path: string, table: string): Promise<number[]> {
  const rows = await query(
    path,
    `SELECT row_group_id, sum(count) FROM pragma_storage_info('${table}') WHERE column_path = '[0]' GROUP BY ALL ORDER BY 1`,
  );
  return rows.map((row) => Number(row[1]));
}

function idBatches(from: number, count: number): RecordBatch[] {
  const out: RecordBatch[] = [];
  for (let start = from; start < from + count; start += 4096) {
    const length = Math.min(4096, from + count - start);
    out.push({
      schema: [col("id", t("int64"))],
      length,
      columns: [{ values: BigInt64Array.from({ length }, (_, i) => BigInt(start + i)) }],
    });
  }
  return out;
}

describe("the target's memory_limit", () => {
  it("is 256 MB unless set, the value set otherwise, and DuckDB's own with -1", async () => {
    for (const [path, options, expected] of [
      ["default.duckdb", {}, "244.1 MiB"],
      ["set.duckdb", { memory_limit: "1GB" }, "953.6 MiB"],
    ] as const) {
      const target = await openTarget(path, options);
      try {
        expect(await limitOf(path)).toBe(expected);
      } finally {
        await target.close();
      }
    }
    const target = await openTarget("lifted.duckdb", { memory_limit: "-1" });
    try {
      // DuckDB's default is 80% of the machine's memory: far above the target's default.
      expect(await limitOf("lifted.duckdb")).toMatch(/GiB$/);
    } finally {
      await target.close();
    }
  });

  it("unset, loads what DuckDB keeps pinned: many columns, and long values", async () => {
    // Both failed at 32 MB ("could not allocate block", "failed to pin block"): why the default is not lower.
    const path = "pinned.duckdb";
    const target = await openTarget(path);
    try {
      const many = Array.from({ length: 121 }, (_, i) => col(`c${i}`, t("int64")));
      const rows = 3000;
      const values = () => ({ values: BigInt64Array.from({ length: rows }, (_, r) => BigInt(r)) });
      await target.ensureTable({ schema: "raw", name: "many" }, many, {});
      const wide = await target.begin({ schema: "raw", name: "many" }, { strategy: "append", columns: many });
      await wide.write({ schema: many, length: rows, columns: many.map(values) });
      await wide.commit();

      const long = [col("id", t("int64")), col("doc", t("text"))];
      const docs: RecordBatch[] = [];
      for (let start = 0; start < 250; start += 50)
        docs.push({
          schema: long,
          length: 50,
          columns: [
            { values: BigInt64Array.from({ length: 50 }, (_, i) => BigInt(start + i)) },
            { values: Array.from({ length: 50 }, (_, i) => `${start + i}:`.padEnd(100_000, "x")) },
          ],
        });
      await target.ensureTable({ schema: "raw", name: "docs" }, long, {});
      const unit = await target.begin({ schema: "raw", name: "docs" }, { strategy: "append", columns: long });
      // A short value first: the long ones come to a column DuckDB has begun to fill.
      await unit.write(batch(long, [{ id: -1n, doc: "short" }]));
      for (const d of docs) await unit.write(d);
      await unit.commit();
    } finally {
      await target.close();
    }
    expect(await query(path, "SELECT count(*), sum(c120) FROM raw.many")).toEqual([[3000n, 4_498_500n]]);
    expect(
      await query(path, "SELECT count(*), count(*) FILTER (WHERE length(doc) = 100000), min(id), max(id) FROM raw.docs"),
    ).toEqual([[251n, 250n, -1n, 249n]]);
  });

  it("names the attached file as DuckDB names a file it opens: up to its first dot", async () => {
    for (const [path, expected] of [
      ["my.data.duckdb", "my"],
      ["a-b c.db", "a-b c"],
      ["memory.duckdb", "memory_db"],
    ] as const) {
      const target = await openTarget(path);
      try {
        await load(target, { schema: "raw", name: "t" }, [col("id", t("int64"))], idBatches(0, 3));
        expect(await query(path, "SELECT current_database(), count(*) FROM raw.t")).toEqual([[expected, 3n]]);
      } finally {
        await target.close();
      }
    }
  });

  it("refuses a value DuckDB would not read before opening anything", async () => {
    for (const options of [{ memory_limit: "lots" }, { row_group_size: 10_000 }]) {
      const error = await openTarget("never.duckdb", options).catch((e: unknown) => e);
      expect(isSqlloadError(error) && error.code).toBe("SL107");
    }
    expect(existsSync(join(dir(), "never.duckdb"))).toBe(false);
  });

  it("unset, cuts what a run writes into row groups of 32,768 rows", async () => {
    const path = "default-rgs.duckdb";
    const ref = { schema: "raw", name: "ids" };
    const target = await openTarget(path);
    try {
      await load(target, ref, [col("id", t("int64"))], idBatches(0, 100_000));
    } finally {
      await target.close();
    }
    expect(await rowGroups(path, "raw.ids")).toEqual([32_768, 32_768, 32_768, 1696]);
  });

  it("row_group_size cuts what this run writes into smaller row groups and leaves the file's others alone", async () => {
    const path = "rgs.duckdb";
    const ref = { schema: "raw", name: "ids" };
    const columns = [col("id", t("int64"))];
    const plain = await openTarget(path, { row_group_size: 122_880 });
    try {
      await load(plain, ref, columns, idBatches(0, 20_000));
    } finally {
      await plain.close();
    }
    const small = await openTarget(path, { row_group_size: 4096 });
    try {
      await load(small, ref, columns, idBatches(20_000, 20_000));
      // While the target has it open, the file is the catalog connections start in, named as DuckDB names an opened file.
      expect(await query(path, "SELECT current_database(), count(*), sum(id) FROM raw.ids")).toEqual([
        ["rgs", 40_000n, 799_980_000n],
      ]);
      expect((await small.describeTable(ref))?.columns.map((c) => c.name)).toEqual(["id"]);
    } finally {
      await small.close();
    }
    // Opened directly again (not attached): the first run's row group as it was, the second run's cut at 4,096 rows.
    expect(await rowGroups(path, "raw.ids")).toEqual([20_000, 4096, 4096, 4096, 4096, 3616]);
    expect(await query(path, "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM raw.ids")).toEqual([
      [40_000n, 40_000n, 0n, 39_999n],
    ]);
  });

  it("removes the spill files a killed run left next to the file when the target opens it, and nothing else", async () => {
    // Named as DuckDB 1.5 names them (a SIGKILL during a spill leaves these; DuckDB removes them only on a clean close).
    for (const [path, others] of [
      ["crashed.duckdb", []],
      ["crashed-too.duckdb", ["notes.txt"]],
    ] as const) {
      const folder = join(dir(), `${path}.tmp`);
      mkdirSync(folder);
      for (const name of ["duckdb_temp_storage_DEFAULT-0.tmp", "duckdb_temp_storage_S32K-0.tmp", ...others])
        writeFileSync(join(folder, name), "x");
      const target = await openTarget(path, { row_group_size: path === "crashed.duckdb" ? undefined : 4096 });
      try {
        expect(existsSync(folder) ? readdirSync(folder) : null).toEqual(others.length > 0 ? others : null);
      } finally {
        await target.close();
      }
    }
  });

  it("keeps every row of a load many times its size: written blocks are dropped, the rest spills", async () => {
    // 130,000 rows of 128 characters of hashes (17 MB, hardly compressible) under a 4 MB limit:
    // more than a row group (32,768 rows), so DuckDB writes some within the transaction and must
    // drop their blocks, and builds each beyond the limit.
    const path = "spill.duckdb";
    const columns: Column[] = [col("id", t("int64")), col("s", t("text"))];
    const text = (id: number) => createHash("sha256").update(String(id)).digest("hex").repeat(2);
    const batches: RecordBatch[] = [];
    for (let start = 0; start < 130_000; start += 4096) {
      const length = Math.min(4096, 130_000 - start);
      const ids = new BigInt64Array(length);
      const strings: string[] = new Array(length);
      for (let i = 0; i < length; i++) {
        ids[i] = BigInt(start + i);
        strings[i] = text(start + i);
      }
      batches.push({ schema: columns, length, columns: [{ values: ids }, { values: strings }] });
    }
    const target = await openTarget(path, { memory_limit: "4MB" });
    try {
      await load(target, { schema: "raw", name: "wide" }, columns, batches);
    } finally {
      await target.close();
    }
    // Read back from the file after it was closed, by DuckDB's own SQL, not the connector's reader.
    const db = await openDatabase(path, dir(), "read_only", "source");
    try {
      const connection = await db.connect();
      const reader = await connection.runAndReadAll(
        `SELECT count(*), count(DISTINCT id), min(id), max(id),
                count(*) FILTER (WHERE s <> repeat(sha256(id::VARCHAR), 2))
         FROM raw.wide`,
      );
      expect(reader.getRows()[0]?.map(Number)).toEqual([130_000, 130_000, 0, 129_999, 0]);
    } finally {
      await db.release();
    }
    // DuckDB's temporary folder next to the file is gone once the file is closed.
    expect(existsSync(join(dir(), `${path}.tmp`))).toBe(false);
  });
});
