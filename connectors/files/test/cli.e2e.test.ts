import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Manifest, tableDir } from "../src/index.js";
import { ok, project, queryDuckDB, sqlload } from "./e2e.js";
import { corruptData, duck, parquet, targetRows, writeText } from "./harness.js";

// SPEC §6 and §11 through the built CLI (`pnpm --filter sqlload build` first).

const manifestOf = (dir: string, name: string): Manifest =>
  JSON.parse(readFileSync(join(dir, "lake", tableDir({ schema: "raw", name }), "manifest.json"), "utf8")) as Manifest;
const committedLines = (stdout: string) => stdout.split("\n").filter((l) => l.startsWith("committed "));

describe("files source into DuckDB", () => {
  it("loads a CSV folder, then only what is at or after the loaded maximum", async () => {
    const dir = project(`[target]
connector = "duckdb"
path = "w.duckdb"

[sources.lake]
connector = "files"
path = "data"

[sources.lake.tables.orders]
glob = "orders/*.csv"
cursor_column = "updated_at"
`);
    writeText(join(dir, "data/orders/a.csv"), "id,name,updated_at\n1,a,2026-10-01 10:00:00\n2,b,2026-10-01 11:00:00\n");
    writeText(join(dir, "data/orders/b.csv"), "id,name,updated_at\n3,c,2026-10-02 09:00:00\n");
    const plan = await ok(["plan"], dir);
    expect(plan.stdout).toContain("raw.lake__orders ← lake.orders");
    expect(plan.stdout).toContain("2 csv files match orders/*.csv");
    const first = await ok(["load"], dir);
    expect(first.stdout).toMatch(/^loaded raw\.lake__orders 3 rows/m);
    // A later file, and a row at the maximum that changed: read from the maximum, replaced.
    writeText(join(dir, "data/orders/b.csv"), "id,name,updated_at\n3,C,2026-10-02 09:00:00\n");
    writeText(join(dir, "data/orders/c.csv"), "id,name,updated_at\n4,d,2026-10-03 09:00:00\n");
    await ok(["load"], dir);
    const rows = await queryDuckDB(join(dir, "w.duckdb"), "SELECT id::INT AS id, name FROM raw.lake__orders ORDER BY id");
    expect(rows).toEqual([
      { id: 1, name: "a" },
      { id: 2, name: "b" },
      { id: 3, name: "C" },
      { id: 4, name: "d" },
    ]);
  });

  it("reads Hive partitions with a partition cursor, opening only partitions at or after the position", async () => {
    const dir = project(`[target]
connector = "duckdb"
path = "w.duckdb"

[sources.lake]
connector = "files"
path = "data"

[sources.lake.tables.events]
glob = "events/**/*.parquet"
cursor_column = "day"
`);
    for (const [day, from] of [
      ["2026-10-01", 0],
      ["2026-10-02", 10],
      ["2026-10-03", 20],
    ] as const) {
      await parquet(
        join(dir, `data/events/day=${day}/part-0.parquet`),
        `SELECT range::BIGINT AS id, 'e' || range AS name FROM range(${from}, ${from + 10})`,
      );
    }
    const plan = await ok(["plan"], dir);
    expect(plan.stdout).toContain("cursor day is a partition folder");
    await ok(["load"], dir);
    // The first partition's data becomes unreadable (its footer stays): a run that opened it would fail.
    corruptData(join(dir, "data/events/day=2026-10-01/part-0.parquet"));
    await parquet(
      join(dir, "data/events/day=2026-10-04/part-0.parquet"),
      "SELECT range::BIGINT AS id, 'e' || range AS name FROM range(30, 35)",
    );
    const second = await ok(["load"], dir);
    // Partition 2026-10-03 (the maximum) again, and 2026-10-04.
    expect(second.stdout).toMatch(/^loaded raw\.lake__events 15 rows/m);
    const rows = await queryDuckDB(
      join(dir, "w.duckdb"),
      "SELECT strftime(day, '%Y-%m-%d') AS day, count(*)::INT AS n FROM raw.lake__events GROUP BY 1 ORDER BY 1",
    );
    expect(rows).toEqual([
      { day: "2026-10-01", n: 10 },
      { day: "2026-10-02", n: 10 },
      { day: "2026-10-03", n: 10 },
      { day: "2026-10-04", n: 5 },
    ]);
  });
});

describe("files target", () => {
  it("loads DuckDB into Parquet files with a manifest and a run log, incrementally", async () => {
    const dir = project(`[target]
connector = "files"
path = "lake"

[sources.db]
connector = "duckdb"
path = "src.duckdb"

[sources.db.tables."main.orders"]
cursor_column = "k"
primary_key = ["id"]
`);
    const src = join(dir, "src.duckdb");
    await duck(
      `ATTACH '${src}' AS s`,
      "CREATE TABLE s.orders AS SELECT range::BIGINT AS id, 'v' || range AS v, range // 10 AS k FROM range(100)",
    );
    await ok(["load"], dir);
    await duck(
      `ATTACH '${src}' AS s`,
      "INSERT INTO s.orders SELECT range::BIGINT AS id, 'w' || range AS v, range // 10 AS k FROM range(100, 150)",
    );
    await ok(["load"], dir);
    const rows = await targetRows(join(dir, "lake"), { schema: "raw", name: "db__orders" }, "id");
    expect(rows).toHaveLength(150);
    expect(new Set(rows.map((r) => r.id)).size).toBe(150);
    const manifest = manifestOf(dir, "db__orders");
    expect(manifest.runLog.last).toBe(2);
    expect(readdirSync(join(dir, "lake/raw/db__orders/_sqlload/runs"))).toHaveLength(2);
    expect((await ok(["plan"], dir)).stdout).toContain("cursor k from 14 (destination maximum)");
  });

  it("loads files into files, partitioned, rewriting only the partitions a run replaces", async () => {
    const dir = project(`[target]
connector = "files"
path = "lake"
partition_by = { lake__events = "day" }

[sources.lake]
connector = "files"
path = "data"

[sources.lake.tables.events]
glob = "events/*.jsonl"
cursor_column = "day"
`);
    const line = (id: number, day: string) => `{"id":${id},"day":"${day}","v":"x${id}"}\n`;
    writeText(join(dir, "data/events/1.jsonl"), line(1, "2026-10-01") + line(2, "2026-10-01") + line(3, "2026-10-02"));
    await ok(["load"], dir);
    const before = manifestOf(dir, "lake__events").files;
    const oldDay = before.find((f) => f.partition?.value === "2026-10-01");
    writeText(
      join(dir, "data/events/1.jsonl"),
      line(1, "2026-10-01") + line(2, "2026-10-01") + line(3, "2026-10-02") + line(4, "2026-10-02"),
    );
    writeText(join(dir, "data/events/2.jsonl"), line(5, "2026-10-03"));
    await ok(["load"], dir);
    const after = manifestOf(dir, "lake__events");
    expect(after.files.map((f) => f.path)).toContain(oldDay?.path);
    expect(after.files.map((f) => `${f.partition?.value}:${f.rows}`).sort()).toEqual([
      "2026-10-01:2",
      "2026-10-02:2",
      "2026-10-03:1",
    ]);
    const rows = await targetRows(join(dir, "lake"), { schema: "raw", name: "lake__events" }, "id");
    expect(rows.map((r) => r.id)).toEqual(["1", "2", "3", "4", "5"]);
  });

  it("commits 1,500 small files in two commits, 1,000 files each at most", async () => {
    const dir = project(`[target]
connector = "files"
path = "lake"

[sources.lake]
connector = "files"
path = "data"

[sources.lake.tables.parts]
glob = "parts/**/*.parquet"
cursor_column = "n"
`);
    mkdirSync(join(dir, "data"), { recursive: true });
    await duck(
      `COPY (SELECT range::BIGINT AS id, range AS n FROM range(1, 1501)) TO '${join(dir, "data/parts")}' (FORMAT parquet, PARTITION_BY (n))`,
    );
    expect((await ok(["plan"], dir)).stdout).toContain(
      "without batch_size a load commits every 1,000 files or about 1 GB, never inside a partition",
    );
    const load = await ok(["load"], dir);
    const commits = committedLines(load.stdout);
    expect(commits).toHaveLength(2);
    expect(commits[0]).toContain("commit 1,000 rows position 1000");
    expect(commits[1]).toContain("commit 500 rows position 1500");
    expect(manifestOf(dir, "lake__parts").runLog.last).toBe(2);
    expect(await targetRows(join(dir, "lake"), { schema: "raw", name: "lake__parts" })).toHaveLength(1500);
  });
});

describe("the quickstart example", () => {
  it("loads its folder of CSV files into DuckDB, and again incrementally", async () => {
    const example = join(__dirname, "..", "..", "..", "examples", "files-quickstart");
    const dir = join(project(""), "example");
    cpSync(example, dir, { recursive: true, filter: (src) => !/node_modules|\.duckdb|\.sqlload/.test(src) });
    rmSync(join(dir, "warehouse.duckdb"), { force: true });
    const first = await ok(["load"], dir);
    expect(first.stdout).toMatch(/^loaded raw\.shop__orders 5 rows/m);
    expect(first.stdout).toMatch(/^loaded raw\.shop__customers 3 rows/m);
    const warehouse = join(dir, "warehouse.duckdb");
    expect(await queryDuckDB(warehouse, "SELECT count(*)::INT AS n, max(id)::INT AS last FROM raw.shop__orders")).toEqual([
      { n: 5, last: 1005 },
    ]);
    writeText(
      join(dir, "data/orders/2026-10-03.csv"),
      "id,customer_id,amount,status,updated_at\n1006,3,12.00,placed,2026-10-03 07:00:00\n",
    );
    const second = await ok(["load"], dir);
    // The row at the maximum (1005, 2026-10-02 15:05) again, and the new one.
    expect(second.stdout).toMatch(/^loaded raw\.shop__orders 2 rows/m);
    expect(
      await queryDuckDB(warehouse, "SELECT count(*)::INT AS n, count(DISTINCT id)::INT AS ids FROM raw.shop__orders"),
    ).toEqual([{ n: 6, ids: 6 }]);
  });
});

describe("configuration errors", () => {
  it("names the table and key when a glob matches nothing", async () => {
    const dir = project(`[sources.lake]
connector = "files"
path = "data"

[sources.lake.tables.orders]
glob = "orders/*.csv"
`);
    mkdirSync(join(dir, "data"));
    const result = await sqlload(["load"], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("SL206");
    expect(result.stderr).toContain("orders/*.csv");
  });
});
