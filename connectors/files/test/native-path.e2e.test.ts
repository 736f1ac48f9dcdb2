import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ok, project, queryDuckDB, sqlload } from "./e2e.js";
import { duck, parquet, writeText } from "./harness.js";

// The native path (the DuckDB target reading a files source's Parquet and CSV itself) must load
// exactly what the row path loads. Two projects read the same folder, one with
// `native_file_reads = false`; every table, after a first and an incremental run, must hold the
// same rows in both. One `load` per project per run loads every table (CLI starts are costly).

const TABLES = `
[sources.lake.tables.typed]
glob = "typed/*.parquet"
cursor_column = "updated_at"

[sources.lake.tables.events]
glob = "events/**/*.parquet"
cursor_column = "day"
write_strategy = "append"

[sources.lake.tables.windowed]
glob = "windowed/*.csv"
cursor_column = "n"
batch_size = "3"
cursor_start = "0"

[sources.lake.tables.whole]
glob = "whole/*.csv"

[sources.lake.tables.keyed]
glob = "keyed/*.parquet"
cursor_column = "updated_at"
write_strategy = "merge"
primary_key = ["id"]
`;

const TABLE_NAMES = ["typed", "events", "windowed", "whole", "keyed"];

function projectFor(data: string, native: boolean): string {
  return project(`[target]
connector = "duckdb"
path = "w.duckdb"
native_file_reads = ${native}
[sources.lake]
connector = "files"
path = "${data.replaceAll("\\", "\\\\")}"
${TABLES}`);
}

/** Rows in one table but not the other, both ways, and each table's count. */
async function compare(native: string, rows: string, table: string): Promise<{ only: unknown[]; counts: unknown[] }> {
  const name = `raw.lake__${table}`;
  const only = await duck(
    `ATTACH '${join(native, "w.duckdb")}' AS a (READ_ONLY)`,
    `ATTACH '${join(rows, "w.duckdb")}' AS b (READ_ONLY)`,
    `SELECT 'native only' AS side, * FROM (SELECT * FROM a.${name} EXCEPT ALL SELECT * FROM b.${name})
     UNION ALL SELECT 'rows only', * FROM (SELECT * FROM b.${name} EXCEPT ALL SELECT * FROM a.${name})`,
  );
  const counts = await duck(
    `ATTACH '${join(native, "w.duckdb")}' AS a (READ_ONLY)`,
    `ATTACH '${join(rows, "w.duckdb")}' AS b (READ_ONLY)`,
    `SELECT (SELECT count(*) FROM a.${name})::INTEGER AS native, (SELECT count(*) FROM b.${name})::INTEGER AS rows`,
  );
  return { only, counts };
}

async function columnTypes(dir: string, table: string): Promise<unknown[]> {
  return duck(
    `ATTACH '${join(dir, "w.duckdb")}' AS w (READ_ONLY)`,
    `SELECT column_name, data_type FROM information_schema.columns
      WHERE table_catalog = 'w' AND table_schema = 'raw' AND table_name = 'lake__${table}' ORDER BY ordinal_position`,
  );
}

const loadedLines = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l.startsWith("loaded "))
    .map((l) => l.replace(/ [\d.]+s\b/, ""))
    .sort();

describe("files into DuckDB: the native path loads what the row path loads", () => {
  it("Parquet and CSV, typed columns, NULL cursors, partitions, windows, replace and merge, first and incremental runs", async () => {
    const data = project("");
    mkdirSync(join(data, "data"));
    const folder = join(data, "data");
    // Types the two paths convert differently: decimals, microsecond timestamps with zone, dates,
    // doubles, booleans, bigints beyond 2^53, text with astral and multi-byte characters; a
    // column one file lacks and one that widens from INTEGER to BIGINT across files; NULL cursors.
    await parquet(
      join(folder, "typed/a.parquet"),
      `SELECT g::INTEGER AS id, (g * 1.25)::DECIMAL(18,4) AS amount, g / 3.0 AS ratio, g % 2 = 0 AS even,
              DATE '2026-01-01' + g::INTEGER AS day, (9007199254740993 + g)::BIGINT AS big,
              CASE g % 3 WHEN 0 THEN 'plain ' || g WHEN 1 THEN 'é𝄞 ' || g ELSE NULL END AS label,
              CASE WHEN g = 5 THEN NULL ELSE TIMESTAMPTZ '2026-03-01 00:00:00+00' + to_microseconds(g * 1000001) END AS updated_at
         FROM range(0, 40) t(g)`,
    );
    await parquet(
      join(folder, "typed/b.parquet"),
      `SELECT g::BIGINT AS id, (g * 1.25)::DECIMAL(18,4) AS amount, g / 3.0 AS ratio, g % 2 = 0 AS even,
              DATE '2026-01-01' + g::INTEGER AS day, (9007199254740993 + g)::BIGINT AS big, 'later ' || g AS label, 'extra' AS note,
              TIMESTAMPTZ '2026-03-01 00:00:00+00' + to_microseconds(g * 1000001) AS updated_at
         FROM range(40, 70) t(g)`,
    );
    for (const [day, from] of [
      ["2026-10-01", 0],
      ["2026-10-02", 10],
    ] as const) {
      await parquet(
        join(folder, `events/day=${day}/part-0.parquet`),
        `SELECT range::BIGINT AS id, 'e' || range AS name FROM range(${from}, ${from + 10})`,
      );
    }
    writeText(join(folder, "windowed/a.csv"), `n,name\n${Array.from({ length: 10 }, (_, i) => `${i},w${i}`).join("\n")}\n`);
    writeText(join(folder, "whole/a.csv"), "id,name,at\n1,a,2026-10-01 10:00:00\n2,,2026-10-01 11:00:00\n");
    await parquet(
      join(folder, "keyed/a.parquet"),
      `SELECT g AS id, 'k' || g AS name, TIMESTAMPTZ '2026-05-01 00:00:00+00' + to_seconds(g) AS updated_at FROM range(0, 20) t(g)`,
    );

    const native = projectFor(folder, true);
    const rows = projectFor(folder, false);
    const nativePlan = await ok(["plan"], native);
    const rowsPlan = await ok(["plan"], rows);
    expect(nativePlan.stdout.match(/read: the target reads the parquet files itself \(native path\)/g)).toHaveLength(2);
    expect(nativePlan.stdout.match(/read: the target reads the csv files itself \(native path\)/g)).toHaveLength(2);
    expect(nativePlan.stdout).toContain("read: rows through sqlload (merge checks primary keys in every batch)");
    expect(rowsPlan.stdout.match(/read: rows through sqlload \(the target cannot read these files\)/g)).toHaveLength(5);

    const check = async () => {
      for (const table of TABLE_NAMES) {
        const { only, counts } = await compare(native, rows, table);
        expect({ table, only }).toEqual({ table, only: [] });
        const [{ native: n, rows: r }] = counts as [{ native: number; rows: number }];
        expect({ table, n }).toEqual({ table, n: r });
        expect(await columnTypes(native, table)).toEqual(await columnTypes(rows, table));
      }
    };
    const first = [await ok(["load"], native), await ok(["load"], rows)];
    expect(loadedLines(first[0]!.stdout)).toEqual(loadedLines(first[1]!.stdout));
    expect(loadedLines(first[0]!.stdout)).toContain("loaded raw.lake__typed 70 rows");
    await check();

    // An incremental run: a new file, a changed row at the maximum, a new partition, more windows.
    await parquet(
      join(folder, "typed/c.parquet"),
      `SELECT g::BIGINT AS id, 0.5::DECIMAL(18,4) AS amount, 0.0 AS ratio, true AS even, DATE '2027-01-01' AS day,
              1::BIGINT AS big, 'newest ' || g AS label, NULL::VARCHAR AS note,
              TIMESTAMPTZ '2026-03-01 00:00:00+00' + to_microseconds(69 * 1000001) + to_microseconds(g) AS updated_at
         FROM range(0, 5) t(g)`,
    );
    await parquet(
      join(folder, "events/day=2026-10-03/part-0.parquet"),
      `SELECT range::BIGINT AS id, 'e' || range AS name FROM range(20, 30)`,
    );
    writeText(
      join(folder, "windowed/b.csv"),
      `n,name\n${Array.from({ length: 5 }, (_, i) => `${i + 10},w${i + 10}`).join("\n")}\n`,
    );
    writeText(join(folder, "whole/a.csv"), "id,name,at\n1,A,2026-10-01 10:00:00\n3,c,2026-10-02 11:00:00\n");
    const again = [await ok(["load"], native), await ok(["load"], rows)];
    expect(loadedLines(again[0]!.stdout)).toEqual(loadedLines(again[1]!.stdout));
    await check();
  });

  it("a load killed after the files were read into the unit, or right after its commit, loses and doubles nothing", async () => {
    const dir = project(`[target]
connector = "duckdb"
path = "w.duckdb"
native_file_reads = true

[sources.lake]
connector = "files"
path = "data"

[sources.lake.tables.orders]
glob = "orders/*.parquet"
cursor_column = "updated_at"
`);
    for (let f = 0; f < 3; f++) {
      await parquet(
        join(dir, `data/orders/p${f}.parquet`),
        `SELECT g AS id, TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(g // 2) AS updated_at FROM range(${f * 100}, ${f * 100 + 100}) t(g)`,
      );
    }
    const count = async () =>
      (
        await queryDuckDB(
          join(dir, "w.duckdb"),
          "SELECT count(*)::INTEGER AS n, count(DISTINCT id)::INTEGER AS d FROM raw.lake__orders",
        )
      )[0];
    // Killed with the rows in the unit, before its commit: nothing landed.
    const killed = await sqlload(["load"], dir, { SQLLOAD_TEST_CRASH: "write:1" });
    expect(killed.code).not.toBe(0);
    const before = await queryDuckDB(
      join(dir, "w.duckdb"),
      "SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_name = 'lake__orders'",
    );
    // The table was created before the unit began (ensureTable commits on its own), empty.
    expect(before).toEqual([{ n: 1 }]);
    expect(await count()).toEqual({ n: 0, d: 0 });
    // Killed right after the commit: everything landed once.
    expect((await sqlload(["load"], dir, { SQLLOAD_TEST_CRASH: "commit:1" })).code).not.toBe(0);
    expect(await count()).toEqual({ n: 300, d: 300 });
    // A new file; the next run replaces from the maximum and adds it, exactly once.
    await parquet(
      join(dir, "data/orders/p3.parquet"),
      `SELECT g AS id, TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(g // 2) AS updated_at FROM range(300, 350) t(g)`,
    );
    await ok(["load"], dir);
    expect(await count()).toEqual({ n: 350, d: 350 });
  });
});
