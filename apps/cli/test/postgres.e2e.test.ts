import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createDatabase, type PostgresInstance, startPostgres } from "@sqlload/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryDuckDB, sqlload, tempDir } from "./cli.js";

// Postgres as a source and a target, end to end through the built CLI (SPEC §4, §6, §12).
let server: PostgresInstance;
let databases = 0;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

async function sql(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

async function database(): Promise<string> {
  return createDatabase(server.url, `db${databases++}`);
}

/** A project reading Postgres `sourceUrl` into DuckDB (default) or into Postgres `targetUrl`. */
function project(
  sourceUrl: string,
  tables: string,
  targetUrl?: string,
): { dir: string; run: (...args: string[]) => ReturnType<typeof sqlload> } {
  const dir = tempDir("sqlload-pg-");
  const target = targetUrl ? `[target]\nconnector = "postgres"\nurl = "${targetUrl}"\n` : `[target]\npath = "w.duckdb"\n`;
  writeFileSync(
    join(dir, "sqlload.toml"),
    `${target}\n[sources.app]\nconnector = "postgres"\nurl = "\${SOURCE_URL}"\n\n${tables}`,
  );
  return { dir, run: (...args) => sqlload(args, { cwd: dir, env: { SOURCE_URL: sourceUrl } }) };
}

const ALL_TYPES = `
create type mood as enum ('sad', 'ok', 'happy');
create table public.all_types (
  id bigint primary key, i2 smallint, i4 integer, i8 bigint, num numeric(30,10), num_free numeric, f4 real, f8 double precision,
  b boolean, t text, vc varchar(20), ch char(3), by bytea, d date, ts timestamp, tstz timestamptz, tm time, u uuid,
  j json, jb jsonb, arr integer[], tarr text[], e mood
);
insert into public.all_types values
  (1, -32768, 2147483647, 9007199254740993, 12345678901234567890.1234567890, 1234.5, 1.5, 1234.567890123456,
   true, 'é\u{1F600}''q${"ü".repeat(20)}', 'varchar', 'ab', '\\xdeadbeef', '2026-02-28', '2026-10-12 16:00:00.123456', '2026-10-12 18:00:00.000001+02',
   '23:59:59.999999', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2]}', '{"b": {"c": null}}', '{1,NULL,3}', '{"x","y z"}', 'happy'),
  (2, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null);
`;

const COLUMNS = [
  "i2",
  "i4",
  "i8",
  "num",
  "num_free",
  "f4",
  "f8",
  "b",
  "t",
  "vc",
  "ch",
  "by",
  "d",
  "ts",
  "tstz",
  "tm",
  "u",
  "j",
  "jb",
  "arr",
  "tarr",
  "e",
];

describe("every common type round-trips", () => {
  it("Postgres → DuckDB", async () => {
    const src = await database();
    await sql(src, ALL_TYPES);
    const p = project(src, `[sources.app.tables."public.all_types"]\nprimary_key = ["id"]\n`);
    const load = await p.run("load");
    expect(load.code, load.stderr).toBe(0);
    const [row, nulls] = await queryDuckDB(
      join(p.dir, "w.duckdb"),
      `select i2, i4, i8::varchar as i8, num::varchar as num, num_free::varchar as num_free, f4, f8, b, t, vc, ch, hex("by") as "by", d::varchar as d,
              strftime(ts, '%Y-%m-%d %H:%M:%S.%f') as ts, epoch_us(tstz)::varchar as tstz, tm::varchar as tm, u::varchar as u, j::varchar as j,
              jb::varchar as jb, arr::varchar as arr, tarr::varchar as tarr, e from raw.app__all_types order by id`,
    );
    expect(row).toEqual({
      i2: -32768,
      i4: 2147483647,
      i8: "9007199254740993",
      num: "12345678901234567890.1234567890",
      num_free: "1234.500000000",
      f4: 1.5,
      f8: 1234.567890123456,
      b: true,
      // Past the 12 bytes DuckDB keeps inline, so the long path of text written as bytes is taken too.
      t: `é\u{1F600}'q${"ü".repeat(20)}`,
      vc: "varchar",
      ch: expect.stringMatching(/^ab ?$/),
      by: "DEADBEEF",
      d: "2026-02-28",
      ts: "2026-10-12 16:00:00.123456",
      tstz: String(Date.UTC(2026, 9, 12, 16) * 1000 + 1),
      tm: "23:59:59.999999",
      u: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
      j: expect.stringMatching(/^\{"a": ?\[1, ?2\]\}$/),
      jb: expect.stringMatching(/^\{"b": ?\{"c": ?null\}\}$/),
      arr: "[1, NULL, 3]",
      tarr: "[x, y z]",
      e: "happy",
    });
    expect(Object.entries(nulls as object).filter(([, v]) => v !== null)).toEqual([]);
  });

  it("refuses a number an unconstrained numeric column would lose digits of, naming it", async () => {
    const src = await database();
    await sql(src, "create table public.tiny (id int, x numeric); insert into public.tiny values (1, 0.000000000000000000001)");
    const p = project(src, `[sources.app.tables."public.tiny"]\n`);
    const load = await p.run("load");
    expect(load.code).toBe(1);
    expect(load.stderr).toContain("0.000000000000000000001");
    expect(load.stderr).toContain("would be rounded");
  });

  it("Postgres → Postgres", async () => {
    const src = await database();
    const dst = await database();
    await sql(src, ALL_TYPES);
    const p = project(src, `[sources.app.tables."public.all_types"]\nprimary_key = ["id"]\n`, dst);
    const load = await p.run("load");
    expect(load.code, load.stderr).toBe(0);
    const text = COLUMNS.map((c) =>
      c === "j" || c === "jb" ? `${c}::jsonb::text as ${c}` : c === "e" ? `${c}::text as ${c}` : `${c}::text as ${c}`,
    ).join(", ");
    const from = await sql(src, `select id, ${text} from public.all_types order by id`);
    const to = await sql(dst, `select id, ${text} from raw.app__all_types order by id`);
    const normal = (rows: Record<string, unknown>[]) =>
      rows.map((r) => ({ ...r, ch: typeof r.ch === "string" ? r.ch.trimEnd() : r.ch }));
    expect(normal(to.rows)).toEqual(normal(from.rows));
  });
});

/** 30,000 orders, three to each second of `updated_at`: runs of ties an ordered read commits between. */
const INSERT_ORDERS = `insert into public.orders select g, '2026-10-01'::timestamptz + (g / 3) * interval '1 second' from generate_series(1, 30000) g`;

/**
 * Loads `raw.app__orders` anew, killed right after its second commit, then again to the end: the first
 * run kept some rows, and the second leaves `rows` of them, each once.
 */
async function killAfterSecondCommitAndResume(dir: string, env: Record<string, string>, dst: string, rows: number) {
  await sql(dst, "drop table raw.app__orders");
  const killed = await sqlload(["load"], { cwd: dir, env: { ...env, SQLLOAD_TEST_CRASH: "commit:2" } });
  expect(killed.code).not.toBe(0);
  const partial = (await sql(dst, "select count(*)::int as n from raw.app__orders")).rows[0].n as number;
  expect(partial).toBeGreaterThan(0);
  expect(partial).toBeLessThan(rows);
  expect((await sqlload(["load"], { cwd: dir, env })).code).toBe(0);
  expect((await sql(dst, "select count(*)::int as n, count(distinct id)::int as d from raw.app__orders")).rows[0]).toEqual({
    n: rows,
    d: rows,
  });
}

describe("cursors", () => {
  it("a text cursor with a linguistic collation, read twice under append, duplicates nothing; plan names the index to create", async () => {
    const src = await database();
    await sql(
      src,
      `create table public.events (id int, k text collate "en-US-x-icu");
       create index events_k on public.events (k);
       insert into public.events values (1, 'apple1'), (2, 'Banana2'), (3, 'cherry3'), (4, 'Date4');`,
    );
    const p = project(src, `[sources.app.tables."public.events"]\ncursor_column = "k"\nwrite_strategy = "append"\n`);
    const plan = await p.run("plan");
    expect(plan.stdout).toContain("CREATE INDEX");
    expect(plan.stdout).toContain('COLLATE "C"');
    expect((await p.run("load")).code).toBe(0);
    const again = await p.run("load");
    expect(again.stdout).toContain("loaded raw.app__events 0 rows");
    // By code point the maximum is 'cherry3'; a new 'date5' sorts after it, a new 'Egg5' before it.
    await sql(src, `insert into public.events values (5, 'date5'), (6, 'Egg5')`);
    await p.run("load");
    const rows = await queryDuckDB(join(p.dir, "w.duckdb"), "select id, k from raw.app__events order by id");
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
  });

  it("bigint cursors beyond 2^53 and microsecond cursors at the boundary", async () => {
    const src = await database();
    await sql(
      src,
      `create table public.big (seq bigint, v text); insert into public.big values (9007199254740993, 'a');
       create table public.micro (at timestamptz, v text); insert into public.micro values ('2026-10-12 16:00:00.000001+00', 'a');`,
    );
    const p = project(
      src,
      `[sources.app.tables."public.big"]\ncursor_column = "seq"\nwrite_strategy = "append"\n\n[sources.app.tables."public.micro"]\ncursor_column = "at"\nwrite_strategy = "append"\n`,
    );
    await p.run("load");
    await sql(
      src,
      `insert into public.big values (9007199254740993, 'dup-at-max'), (9007199254740994, 'b');
       insert into public.micro values ('2026-10-12 16:00:00.000001+00', 'dup-at-max'), ('2026-10-12 16:00:00.000002+00', 'b');`,
    );
    const second = await p.run("load");
    expect(second.code, second.stderr).toBe(0);
    const big = await queryDuckDB(join(p.dir, "w.duckdb"), "select seq::varchar as seq, v from raw.app__big order by seq, v");
    expect(big).toEqual([
      { seq: "9007199254740993", v: "a" },
      { seq: "9007199254740994", v: "b" },
    ]);
    const micro = await queryDuckDB(join(p.dir, "w.duckdb"), 'select v from raw.app__micro order by "at", v');
    expect(micro.map((r) => r.v)).toEqual(["a", "b"]);
  });

  it("follows a target table dropped by hand, loads a source table with 0 rows, and notes the snapshot in plan", async () => {
    const src = await database();
    const dst = await database();
    await sql(
      src,
      `create table public.orders (id int, updated_at timestamptz); create index on public.orders (updated_at);
       insert into public.orders select g, '2026-10-01'::timestamptz + g * interval '1 minute' from generate_series(1, 500) g;
       create table public.empty (id int, updated_at timestamptz);`,
    );
    const tables = `[sources.app.tables."public.orders"]\ncursor_column = "updated_at"\nbatch_size = "1h"\ncursor_start = "2026-10-01"\ncursor_end = "2026-10-02"\n\n[sources.app.tables."public.empty"]\ncursor_column = "updated_at"\n`;
    const p = project(src, tables, dst);
    const plan = await p.run("plan");
    const [windowed, unwindowed] = plan.stdout.split("\n\n");
    expect(windowed).toContain("REPEATABLE READ snapshot");
    // A read without windows holds no snapshot across commits: no note.
    expect(unwindowed).toContain("raw.app__empty");
    expect(unwindowed).not.toContain("REPEATABLE READ");
    expect((await p.run("load")).code).toBe(0);
    expect((await sql(dst, "select count(*)::int as n from raw.app__orders")).rows[0].n).toBe(500);
    expect((await sql(dst, "select count(*)::int as n from raw.app__empty")).rows[0].n).toBe(0);
    await sql(dst, "drop table raw.app__orders");
    const again = await p.run("load", "app__orders");
    expect(again.code, again.stderr).toBe(0);
    expect((await sql(dst, "select count(*)::int as n, count(distinct id)::int as d from raw.app__orders")).rows[0]).toEqual({
      n: 500,
      d: 500,
    });
  });

  it("a windowed delete_insert deletes only the windows the table may hold rows in", async () => {
    const src = await database();
    const dst = await database();
    await sql(
      src,
      `create table public.orders (id int, updated_at timestamptz); create index on public.orders (updated_at);
       insert into public.orders select g, '2026-10-01'::timestamptz + g * interval '1 minute' from generate_series(0, 359) g;`,
    );
    const tables = `[sources.app.tables."public.orders"]\ncursor_column = "updated_at"\nbatch_size = "1h"\ncursor_start = "2026-10-01"\ncursor_end = "2026-10-01T06:00:00Z"\n`;
    const p = project(src, tables, dst);
    expect((await p.run("load", "--end-cursor", "2026-10-01T02:00:00Z")).code).toBe(0);
    // Every DELETE statement on the table from now on, counted even when it deletes nothing.
    await sql(
      dst,
      `create table public.deletes (at timestamptz default clock_timestamp());
       create function public.count_delete() returns trigger language plpgsql as $$ begin insert into public.deletes default values; return null; end $$;
       create trigger counted after delete on raw.app__orders for each statement execute function public.count_delete();`,
    );
    const deletes = async () => (await sql(dst, "select count(*)::int as n from public.deletes")).rows[0].n;
    const rows = async () =>
      (await sql(dst, "select count(*)::int as n, count(distinct id)::int as d from raw.app__orders")).rows[0];
    // The run continues at the logged window end, above the maximum: its four windows hold no rows yet.
    const rest = await p.run("load");
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stdout).toContain("4 windows");
    expect(await deletes()).toBe(0);
    expect(await rows()).toEqual({ n: 360, d: 360 });
    // Read again from 03:00: the three windows at or below the maximum (05:59) replace their rows.
    const again = await p.run("load", "--start-cursor", "2026-10-01T03:00:00Z");
    expect(again.code, again.stderr).toBe(0);
    expect(await deletes()).toBe(3);
    expect(await rows()).toEqual({ n: 360, d: 360 });
  });

  it("commits an ordered read along the way, between distinct cursor values, and resumes after a kill", async () => {
    const src = await database();
    const dst = await database();
    await sql(
      src,
      `create table public.orders (id int, updated_at timestamptz); create index on public.orders (updated_at);
       ${INSERT_ORDERS};`,
    );
    const p = project(src, `[sources.app.tables."public.orders"]\ncursor_column = "updated_at"\n`, dst);
    const plan = await p.run("plan");
    expect(plan.stdout).toContain("batch commits about every 1 GB, in cursor order, only between distinct cursor values");
    const env = { SOURCE_URL: src, SQLLOAD_CHUNK_BYTES: "100000" };
    const load = await sqlload(["load"], { cwd: p.dir, env });
    expect(load.code, load.stderr).toBe(0);
    const commits = load.stdout.split("\n").filter((l) => l.startsWith("committed raw.app__orders")).length;
    expect(commits).toBeGreaterThan(2);
    // Killed right after its second commit, the next run carries on from the data's maximum with nothing doubled.
    await killAfterSecondCommitAndResume(p.dir, env, dst, 30000);
  });

  it("reads a table its statistics reckon under half a commit by a scan, once; a bigger one through the index", async () => {
    const src = await database();
    const dst = await database();
    await sql(
      src,
      `create table public.orders (id int, updated_at timestamptz); create index on public.orders (updated_at);
       ${INSERT_ORDERS};
       insert into public.orders values (0, null);`,
    );
    await sql(src, "vacuum analyze public.orders");
    const p = project(src, `[sources.app.tables."public.orders"]\ncursor_column = "updated_at"\n`, dst);
    const scans = async () => {
      await sql(src, "select pg_stat_force_next_flush()");
      const { rows } = await sql(
        src,
        "select coalesce(seq_scan, 0)::int as seq, coalesce(idx_scan, 0)::int as idx from pg_stat_user_tables where relname = 'orders'",
      );
      return rows[0] as { seq: number; idx: number };
    };
    /** Loads into an empty target; what the source's statistics counted of each kind of scan, and the run's output. */
    const loadCounting = async (env: Record<string, string>) => {
      await sql(dst, "drop table if exists raw.app__orders");
      const before = await scans();
      const load = await sqlload(["load"], { cwd: p.dir, env: { SOURCE_URL: src, ...env } });
      expect(load.code, load.stderr).toBe(0);
      expect((await sql(dst, "select count(*)::int as n, count(distinct id)::int as d from raw.app__orders")).rows[0]).toEqual({
        n: 30001,
        d: 30001,
      });
      for (let wait = 0; wait < 50; wait++) {
        const after = await scans();
        if (after.seq + after.idx > before.seq + before.idx) {
          const commits = load.stdout.split("\n").filter((l) => l.startsWith("committed raw.app__orders")).length;
          return { seq: after.seq - before.seq, idx: after.idx - before.idx, commits, output: `${load.stdout}${load.stderr}` };
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error("the source's statistics never counted the load's read");
    };
    // About 1.3 MB against about 1 GB a commit: one scan, one commit, as `plan` says.
    const plan = await p.run("plan");
    expect(plan.stdout).toContain("reckoned at 1 MB, it is read by a scan first and commits once, unless that read passes 1 GB");
    expect(await loadCounting({})).toMatchObject({ seq: 1, idx: 0, commits: 1 });
    // Against commits of 100 kB, the read is in cursor order from the start: the NULLs, then the index.
    const chunked = await loadCounting({ SQLLOAD_CHUNK_BYTES: "100000" });
    expect(chunked).toMatchObject({ seq: 0 });
    expect(chunked.idx).toBeGreaterThanOrEqual(2);
    expect(chunked.commits).toBeGreaterThan(2);
    // Statistics from when the table was small: the scan passes a commit's bytes, is rolled back, and
    // the table is read again in cursor order, committing along the way.
    await sql(src, "truncate public.orders; insert into public.orders values (0, null)");
    await sql(src, "vacuum analyze public.orders");
    await sql(src, INSERT_ORDERS);
    const stale = await loadCounting({ SQLLOAD_CHUNK_BYTES: "100000" });
    // (The planner, told of one row, may scan for the NULLs too.)
    expect(stale.seq).toBeGreaterThanOrEqual(1);
    expect(stale.idx).toBeGreaterThanOrEqual(1);
    expect(stale.commits).toBeGreaterThan(2);
    expect(stale.output).toMatch(/rolled back and read again in cursor order/);
    // Killed after its second commit in order, the next run carries on with nothing lost or doubled.
    await killAfterSecondCommitAndResume(p.dir, { SOURCE_URL: src, SQLLOAD_CHUNK_BYTES: "100000" }, dst, 30001);
    // Killed inside the unordered attempt (commits of 600 kB: it writes two batches, then reads the
    // third), the next run loads every row once.
    for (const crash of ["write:2", "read:3"]) {
      await sql(dst, "drop table raw.app__orders");
      const env = { SOURCE_URL: src, SQLLOAD_CHUNK_BYTES: "600000" };
      const killed = await sqlload(["load"], { cwd: p.dir, env: { ...env, SQLLOAD_TEST_CRASH: crash } });
      expect(killed.code, crash).not.toBe(0);
      expect((await sql(dst, "select count(*)::int as n from raw.app__orders")).rows[0].n, crash).toBe(0);
      const resumed = await sqlload(["load"], { cwd: p.dir, env });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(`${resumed.stdout}${resumed.stderr}`).toMatch(/rolled back and read again in cursor order/);
      expect((await sql(dst, "select count(*)::int as n, count(distinct id)::int as d from raw.app__orders")).rows[0]).toEqual({
        n: 30001,
        d: 30001,
      });
    }
    // The same into DuckDB, whose unit rolls back an open appender.
    const intoDuckDB = project(src, `[sources.app.tables."public.orders"]\ncursor_column = "updated_at"\n`);
    const duck = await sqlload(["load"], { cwd: intoDuckDB.dir, env: { SOURCE_URL: src, SQLLOAD_CHUNK_BYTES: "600000" } });
    expect(duck.code, duck.stderr).toBe(0);
    expect(`${duck.stdout}${duck.stderr}`).toMatch(/rolled back and read again in cursor order/);
    expect(
      await queryDuckDB(
        join(intoDuckDB.dir, "w.duckdb"),
        "select count(*)::int as n, count(distinct id)::int as d from raw.app__orders",
      ),
    ).toEqual([{ n: 30001, d: 30001 }]);
  });

  it("redacts the password of a connection URL everywhere it would print", async () => {
    const src = await database();
    const withPassword = src.replace("postgres@", "postgres:s3cr3t-pw@");
    const p = project(withPassword, `[sources.app.tables."public.nope"]\ncursor_column = "id"\n`);
    const result = await p.run("load");
    expect(result.code).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toContain("s3cr3t-pw");
  });
});
