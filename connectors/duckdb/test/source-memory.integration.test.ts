import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import type { CursorRange, SourceConnection, SourceItem, SourceTableRequest } from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/duckdb-database.js";
import { duckdbDefaultLimit } from "../src/duckdb-memory-limit.js";
import connector from "../src/index.js";
import { tempProject } from "./harness.js";

// A DuckDB source's file is opened under a small memory_limit that each read raises to what its
// table needs (duckdb-read-memory.ts): DuckDB keeps every block it reads up to the limit, and
// under its own (80% of the memory) a read's memory grew with the table it read.

let project: ReturnType<typeof tempProject>;
const FILE = "source.duckdb";

beforeAll(async () => {
  project = tempProject();
  const instance = await DuckDBInstance.create(join(project.dir, FILE));
  const c = await instance.connect();
  const many = Array.from({ length: 400 }, (_, i) => `(i * ${i + 1} % 1000003)::BIGINT AS c${i}`).join(", ");
  await c.run(`
    CREATE SCHEMA app;
    CREATE TABLE app.pages AS SELECT i::BIGINT AS id, repeat(md5(i::VARCHAR), 32) AS body FROM range(30000) r(i);
    CREATE TABLE app.many AS SELECT i::BIGINT AS id, ${many} FROM range(50000) r(i);
    CREATE TABLE app.long AS SELECT i::BIGINT AS id, repeat(md5(i::VARCHAR), 320) AS body FROM range(3000) r(i);
    CREATE VIEW app.recent AS SELECT * FROM app.pages WHERE id >= 29990;
    CREATE TABLE app.gaps AS SELECT i::BIGINT AS id, repeat(md5(i::VARCHAR), 320) AS body, md5(i::VARCHAR)::BLOB AS tag FROM range(5000) r(i);
    DELETE FROM app.gaps WHERE id % 7 = 3 OR id BETWEEN 2000 AND 2999;
    CREATE TABLE app.huge AS SELECT i::BIGINT AS id, repeat(md5(i::VARCHAR), 65536) AS body FROM range(48) r(i);
    CREATE TABLE app.firstgone AS SELECT i::BIGINT AS id, repeat(md5(i::VARCHAR), 320) AS body FROM range(2000) r(i);
    DELETE FROM app.firstgone WHERE id < 100;
    CREATE TABLE app.rare AS SELECT i::BIGINT AS id, CASE WHEN i % 1000 = 0 THEN repeat(md5(i::VARCHAR), 640) ELSE md5(i::VARCHAR) END AS body FROM range(100000) r(i);
    CREATE TABLE app.scattered AS SELECT i::BIGINT AS id, (i * 7919) % 4000 AS ver, repeat(md5(i::VARCHAR), 320) AS body FROM range(4000) r(i);
    CREATE TABLE app.rowids AS SELECT i::BIGINT AS id, i::BIGINT AS rowid, repeat(md5(i::VARCHAR), 320) AS body FROM range(3000) r(i);
    CREATE TABLE app.shapes AS SELECT i::BIGINT AS id, ('LINESTRING(' || repeat(i::VARCHAR || ' 2, ', 599) || '1 2)')::GEOMETRY AS g FROM range(5000) r(i);
  `);
  c.closeSync();
  instance.closeSync();
});
afterAll(() => project?.cleanup());

const request = (key: string): SourceTableRequest => {
  const [schema, name] = key.split(".");
  return { table: { schema, name: name!, key }, cursorColumn: "id", options: {} };
};

async function open(options: Record<string, unknown> = {}): Promise<SourceConnection> {
  return connector.source!({ options: { path: FILE, ...options }, projectDir: project.dir, sourceName: "src" });
}

const int = (value: bigint) => ({ kind: "integer", value }) as const;

/** Reads every row of `key`; how many. */
async function readAll(source: SourceConnection, key: string): Promise<number> {
  return (await readIds(source, key)).length;
}

/** Reads the rows of `key` whose ids are in `range`: their ids, in the order read. */
async function readIds(source: SourceConnection, key: string, range: CursorRange = {}, ordered = false): Promise<number[]> {
  const req = request(key);
  const reader = await source.openTable(req, await source.describeTable(req));
  const ids: number[] = [];
  try {
    await collectIds(reader.read({ range, includeNulls: true, ordered, signal: new AbortController().signal }), ids);
  } finally {
    await reader.close();
  }
  return ids;
}

/** Adds the `id` of every row a read gives to `ids`. */
async function collectIds(read: AsyncIterable<SourceItem>, ids: number[]): Promise<void> {
  for await (const item of read) {
    if (item.kind !== "batch") continue;
    const id = item.batch.schema.findIndex((c) => c.name === "id");
    for (const value of item.batch.columns[id]!.values as Iterable<unknown>) ids.push(Number(value));
  }
}

/** The memory_limit of the instance this process has open on the file, in bytes. */
async function limit(): Promise<number> {
  const db = await openDatabase(FILE, project.dir, "read_only", "source");
  try {
    const connection = await db.connect();
    const [[text]] = (await connection.runAndReadAll("SELECT current_setting('memory_limit')")).getRows() as [[string]];
    const [, value, unit] = /^([\d.]+) (bytes|KiB|MiB|GiB|TiB)$/.exec(text) ?? [];
    const scale = { bytes: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40 }[unit as "bytes"];
    return Number(value) * scale;
  } finally {
    await db.release();
  }
}

describe("a DuckDB source's memory_limit", () => {
  it("starts at 64 MB and is raised for each table read to what it needs, not DuckDB's own", async () => {
    const source = await open();
    try {
      expect(await limit()).toBeCloseTo(64e6, -6);
      expect(await readAll(source, "app.pages")).toBe(30_000);
      const pages = await limit();
      // Two columns, text of 1,024 bytes: DuckDB's own default would be 80% of the memory.
      expect(pages).toBeGreaterThan(64e6);
      expect(pages).toBeLessThan(200e6);
      // 400 columns: a block of each pinned per thread, far past 64 MB; read whole under the raise.
      expect(await readAll(source, "app.many")).toBe(50_000);
      expect(await limit()).toBeGreaterThan(400e6);
    } finally {
      await source.close();
    }
  });

  it("reads a table of text of 4 KB or more in pages of rowids, each under what the limit is raised to", async () => {
    // Rows of 10 KB: pages of about 800 rows, 8 MB. Read as one query, DuckDB buffered the whole
    // table before its first rows (20,000 rows of 50 KB: 2.4 GB), so the limit was DuckDB's own.
    const source = await open();
    try {
      expect(await readIds(source, "app.long")).toEqual(Array.from({ length: 3000 }, (_, i) => i));
      expect(await limit()).toBeLessThan(100e6);
      // Rowids deleted, in a run and one in seven, and a blob beside the text: each row once.
      const kept = Array.from({ length: 5000 }, (_, i) => i).filter((i) => i % 7 !== 3 && (i < 2000 || i > 2999));
      expect(await readIds(source, "app.gaps")).toEqual(kept);
      // A window's range filters every page; in cursor order it is one query, sorted.
      expect(await readIds(source, "app.gaps", { from: int(1990n), to: int(3010n) })).toEqual(
        kept.filter((i) => i >= 1990 && i < 3010),
      );
      expect(await limit()).toBeLessThan(100e6);
      const ordered = await readIds(source, "app.gaps", { from: int(100n), fromInclusive: true }, true);
      expect(ordered).toEqual(kept.filter((i) => i >= 100));
    } finally {
      await source.close();
    }
  });

  it("reads the statistics of a table whose first rows were deleted from the first row left", async () => {
    // Read at rowid 0 alone, they were missing, and the read took DuckDB's own limit.
    const source = await open();
    try {
      expect(await readIds(source, "app.firstgone")).toEqual(Array.from({ length: 1900 }, (_, i) => i + 100));
      expect(await limit()).toBeLessThan(100e6);
    } finally {
      await source.close();
    }
  });

  it("reads in pages under a `memory_limit` the source sets: values of 2 MB under 64 MB", async () => {
    // As one query, DuckDB ran out of memory: the 48 rows are one chunk of 96 MB.
    const source = await open({ memory_limit: "64MB" });
    try {
      expect(await readAll(source, "app.huge")).toBe(48);
      expect(await limit()).toBeCloseTo(64e6, -6);
    } finally {
      await source.close();
    }
  });

  it("reads long text that is rare, or a window of a cursor that does not follow the rows' order, each row once", async () => {
    const source = await open();
    try {
      // One value of 20 KB in a thousand: pages of many rows.
      expect(await readIds(source, "app.rare")).toEqual(Array.from({ length: 100_000 }, (_, i) => i));
      // Windows of `ver`, which visits the rows out of their order: every row in exactly one window.
      const reqScattered = { ...request("app.scattered"), cursorColumn: "ver" };
      const reader = await source.openTable(reqScattered, await source.describeTable(reqScattered));
      const seen: number[] = [];
      try {
        for (let from = 0n; from < 4000n; from += 700n) {
          const range = { from: int(from), fromInclusive: true, to: int(from + 700n) };
          await collectIds(
            reader.read({ range, includeNulls: false, ordered: false, signal: new AbortController().signal }),
            seen,
          );
        }
      } finally {
        await reader.close();
      }
      expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 4000 }, (_, i) => i));
    } finally {
      await source.close();
    }
  });

  it("is DuckDB's own for a column named rowid, a view, and values its statistics do not measure", async () => {
    // GEOMETRY values of about 10 KB, stored as strings: under the 68 MB a rule taking them as fixed gave, the read failed.
    const rows: Record<string, number> = { "app.rowids": 3000, "app.recent": 10, "app.shapes": 5000 };
    for (const key of Object.keys(rows)) {
      const source = await open();
      try {
        expect(await readAll(source, key)).toBe(rows[key]);
        // DuckDB shows it to a tenth of a GiB.
        expect(Math.abs((await limit()) - duckdbDefaultLimit())).toBeLessThan(0.11 * 2 ** 30);
      } finally {
        await source.close();
      }
    }
  });

  it("is the source's `memory_limit` when it sets one, and reads keep it", async () => {
    const source = await open({ memory_limit: "300MB" });
    try {
      expect(await readAll(source, "app.pages")).toBe(30_000);
      expect(await readAll(source, "app.long")).toBe(3000);
      expect(await limit()).toBeCloseTo(300e6, -6);
    } finally {
      await source.close();
    }
    const own = await open({ memory_limit: "-1" });
    try {
      expect(await readAll(own, "app.pages")).toBe(30_000);
      expect(Math.abs((await limit()) - duckdbDefaultLimit())).toBeLessThan(0.11 * 2 ** 30);
    } finally {
      await own.close();
    }
    await expect(open({ memory_limit: "lots" })).rejects.toMatchObject({
      code: "SL107",
      message: expect.stringMatching(/DuckDB source's/),
    });
  });
});
