import { createHash } from "node:crypto";
import { type Column, isSqlloadError, type RecordBatch, type TargetConnection } from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/duckdb-database.js";
import connector from "../src/index.js";
import { col, load, t, tempProject } from "./harness.js";

let project: ReturnType<typeof tempProject>;
beforeAll(() => {
  project = tempProject();
});
afterAll(() => project?.cleanup());

async function openTarget(path: string, options: Record<string, unknown> = {}): Promise<TargetConnection> {
  if (!connector.target) throw new Error("no target");
  return connector.target({ options: { path, ...options }, projectDir: project.dir, schema: "raw" });
}

/** DuckDB's memory_limit of the instance that has `path` open in this process (openDatabase shares it). */
async function limitOf(path: string): Promise<string> {
  const db = await openDatabase(path, project.dir, "read_only", "source");
  try {
    const connection = await db.connect();
    const reader = await connection.runAndReadAll("SELECT current_setting('memory_limit')");
    return String(reader.getRows()[0]?.[0]);
  } finally {
    await db.release();
  }
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

  it("refuses a value DuckDB would not read before opening anything", async () => {
    const error = await openTarget("never.duckdb", { memory_limit: "lots" }).catch((e: unknown) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL107");
  });

  it("keeps every row of a load many times its size: written blocks are dropped, the rest spills", async () => {
    // 130,000 rows of 128 characters of hashes (17 MB, hardly compressible) under a 4 MB limit:
    // more than a row group (122,880 rows), so DuckDB writes one within the transaction and must
    // drop its blocks, and builds it beyond the limit.
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
    const db = await openDatabase(path, project.dir, "read_only", "source");
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
  });
});
