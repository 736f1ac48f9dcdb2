import { existsSync } from "node:fs";
import { createDatabase, type PostgresInstance, startPostgres } from "@sqlload/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openChdb } from "../src/clickhouse-session.js";
import { CLI, ClickHouseProject, removeProjects, tableModule } from "./cli.js";

// The ClickHouse target end to end through the built CLI, installed in a project's node_modules
// as a user would install it, with ClickHouse in process (chdb). The CLI must be built
// (`pnpm build`); `pnpm test` builds first.
const built = existsSync(CLI);

afterAll(() => removeProjects());

describe.runIf(built)("sqlload into ClickHouse (built CLI, chdb)", () => {
  it("finds the connector in the project, loads TypeScript tables, then only what is new", async () => {
    const p = new ClickHouseProject(
      tableModule({
        orders: { columns: { id: "bigint not null", amount: "decimal(12,2)", updated_at: "timestamptz not null", note: "text" } },
        customers: { columns: { id: "bigint not null", name: "text", seen: "bigint" } },
        rates: { columns: { code: "text not null", rate: "double" } },
      }),
      `[sources.src.tables.orders]\ncursor_column = "updated_at"\nprimary_key = ["id"]\n\n` +
        `[sources.src.tables.customers]\ncursor_column = "seen"\nwrite_strategy = "merge"\nprimary_key = ["id"]\n\n` +
        `[sources.src.tables.rates]\nwrite_strategy = "replace"\n`,
    );
    p.rows("orders", [
      { id: 1n, amount: "10.50", updated_at: "2026-10-12T16:00:00.000001Z", note: "first" },
      { id: 2n, amount: "20.00", updated_at: "2026-10-12T17:00:00Z", note: "B1" },
    ])
      .rows("customers", [
        { id: 1n, name: "Ada", seen: 1n },
        { id: 2n, name: "Grace", seen: 2n },
      ])
      .rows("rates", [{ code: "EUR", rate: 1.1 }]);
    const listed = await p.ok("connectors");
    expect(listed.stdout).toMatch(/clickhouse/);
    const first = await p.ok("load");
    expect(first.stdout).toContain("loaded raw.src__orders 2 rows");
    expect(first.stdout).toContain("loaded raw.src__customers 2 rows");

    await p.inspect(async (query) => {
      const types = await query<{ name: string; type: string }>(
        "SELECT name, type FROM system.columns WHERE database = 'raw' AND table = 'src__orders' ORDER BY position",
      );
      expect(types).toEqual([
        { name: "id", type: "Int64" },
        { name: "amount", type: "Nullable(Decimal(12, 2))" },
        { name: "updated_at", type: "DateTime64(6, 'UTC')" },
        { name: "note", type: "Nullable(String)" },
      ]);
      const [orders] = await query<{ sorting_key: string; engine: string }>(
        "SELECT sorting_key, engine FROM system.tables WHERE database = 'raw' AND name = 'src__orders'",
      );
      expect(orders).toEqual({ sorting_key: "updated_at, id", engine: "MergeTree" });
    });

    const plan = await p.ok("plan", "src__orders");
    expect(plan.stdout).toContain("2026-10-12 17:00:00.000000+00 (destination maximum)");

    // Second run: the row at the maximum changed, one row is new, one late row is ignored.
    p.rows("orders", [
      { id: 1n, amount: "10.50", updated_at: "2026-10-12T16:00:00.000001Z", note: "first" },
      { id: 2n, amount: "25.00", updated_at: "2026-10-12T17:00:00Z", note: "changed at the maximum" },
      { id: 3n, amount: "30.00", updated_at: "2026-10-13T09:00:00Z", note: "new" },
    ])
      .rows("customers", [
        { id: 2n, name: "Grace Hopper", seen: 3n },
        { id: 3n, name: "Edsger", seen: 4n },
      ])
      .rows("rates", [
        { code: "EUR", rate: 1.2 },
        { code: "GBP", rate: 0.9 },
      ]);
    const second = await p.ok("load");
    expect(second.stdout).toContain("loaded raw.src__orders 2 rows");
    await p.inspect(async (query) => {
      expect(await query("SELECT toString(id) AS id, toString(amount) AS amount, note FROM raw.src__orders ORDER BY id")).toEqual(
        [
          { id: "1", amount: "10.5", note: "first" },
          { id: "2", amount: "25", note: "changed at the maximum" },
          { id: "3", amount: "30", note: "new" },
        ],
      );
      expect(await query("SELECT toString(id) AS id, name FROM raw.src__customers FINAL ORDER BY id")).toEqual([
        { id: "1", name: "Ada" },
        { id: "2", name: "Grace Hopper" },
        { id: "3", name: "Edsger" },
      ]);
      expect(await query("SELECT code, rate FROM raw.src__rates ORDER BY code")).toEqual([
        { code: "EUR", rate: 1.2 },
        { code: "GBP", rate: 0.9 },
      ]);
      const log = await query<{ target_name: string; n: string }>(
        "SELECT target_name, toString(count()) AS n FROM raw._sqlload_runs GROUP BY target_name ORDER BY target_name",
      );
      expect(log).toEqual([
        { target_name: "src__customers", n: "2" },
        { target_name: "src__orders", n: "2" },
        { target_name: "src__rates", n: "2" },
      ]);
      // Nothing of the runs' staging, journals or locks is left behind.
      expect(
        await query(
          "SELECT name FROM system.tables WHERE database = 'raw' AND name LIKE '\\_sqlload\\_%' AND name != '_sqlload_runs'",
        ),
      ).toEqual([]);
    });
    const third = await p.ok("load", "src__orders");
    expect(third.stdout).toContain("loaded raw.src__orders 1 rows");

    // While another process holds the chdb folder, the run skips the table as retryable (exit 75).
    const holder = await openChdb("ch", p.dir);
    try {
      const busy = await p.run(["load", "src__orders"]);
      expect(busy.code).toBe(75);
      expect(busy.stdout + busy.stderr).toMatch(/SL306 the chdb folder .* is open in another process \(pid \d+\)/);
    } finally {
      await holder.release();
    }
  });

  describe("a run killed before it publishes (delete_insert in windows)", () => {
    // 6,000 orders over 6 days in pages with a pause, so kills land mid-run; `RUN` tags each row
    // with the run that wrote it, so a partly published run would show.
    const module = `import { source, type Context } from "sqlload";

const src = source("src");
const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);

export const orders = src.table(
  { columns: { id: "bigint not null", amount: "decimal(12,2)", updated_at: "timestamptz not null", run: "text" } },
  async function* orders(ctx: Context) {
    const from = ctx.cursorValue instanceof Date ? ctx.cursorValue.getTime() : -Infinity;
    const to = ctx.cursorEnd instanceof Date ? ctx.cursorEnd.getTime() : Infinity;
    for (let page = 0; page < 12; page++) {
      const rows = [];
      for (let i = page * 500; i < (page + 1) * 500; i++) {
        const at = START + i * (6 * DAY / 6000);
        if (at >= from && at < to) rows.push({ id: i + 1, amount: ((i * 37) % 10000 / 100).toFixed(2), updated_at: new Date(at), run: process.env.RUN ?? "" });
      }
      await new Promise((r) => setTimeout(r, 15));
      yield rows;
    }
  },
);
`;
    const toml = `[sources.src.tables.orders]\ncursor_column = "updated_at"\ncursor_start = "2026-01-01"\ncursor_end = "2026-01-07"\nbatch_size = "1d"\nwrite_strategy = "delete_insert"\n`;
    // The table's rows and the runs' staging tables left behind, read on one opening of the folder.
    const state = (p: ClickHouseProject) =>
      p.inspect(async (query) => ({
        counts: await query<{ rows: string; distinct: string; runs: string[] }>(
          "SELECT toString(count()) AS rows, toString(uniqExact(id)) AS distinct, groupUniqArray(run) AS runs FROM raw.src__orders",
        ),
        leftovers: await query<{ name: string }>(
          "SELECT name FROM system.tables WHERE database = 'raw' AND startsWith(name, '_sqlload_') AND name != '_sqlload_runs'",
        ),
      }));

    it("publishes nothing, and the next run loads exactly the source's rows", async () => {
      const p = new ClickHouseProject(module, toml);
      // Killed right after its third window committed (staged): the table it created is empty.
      const killed = await p.run(["load"], { env: { SQLLOAD_TEST_CRASH: "commit:3", RUN: "a" } });
      expect(killed.signal).toBe("SIGKILL");
      const killedState = await state(p);
      expect(killedState.counts).toEqual([{ rows: "0", distinct: "0", runs: [] }]);
      expect(killedState.leftovers.length).toBeGreaterThan(0);

      await p.run(["load"], { env: { RUN: "a" } }).then((r) => expect(r.code, r.stderr).toBe(0));
      const loaded = await state(p);
      expect(loaded.counts).toEqual([{ rows: "6000", distinct: "6000", runs: ["a"] }]);
      expect(loaded.leftovers).toEqual([]);

      // A re-read of every window, killed after its last window committed: the table is as it was.
      const range = ["load", "--start-cursor", "2026-01-01", "--end-cursor", "2026-01-07"];
      const again = await p.run(range, { env: { SQLLOAD_TEST_CRASH: "commit:6", RUN: "b" } });
      expect(again.signal).toBe("SIGKILL");
      expect((await state(p)).counts).toEqual([{ rows: "6000", distinct: "6000", runs: ["a"] }]);

      // Killed at seeded instants, mid-read or mid-publish, then a run to the end.
      for (const delay of [900, 1900]) {
        const run = await p.run(range, { env: { RUN: "c" }, killAfterMs: delay });
        const [now] = (await state(p)).counts;
        expect(now?.rows).toBe("6000");
        expect(now?.distinct).toBe("6000");
        // Either nothing of the killed run landed, or all of it.
        expect([["a"], ["c"]]).toContainEqual(now?.runs);
        if (run.signal !== "SIGKILL") expect(run.code, run.stderr).toBe(0);
      }
      await p.run(range, { env: { RUN: "d" } }).then((r) => expect(r.code, r.stderr).toBe(0));
      const last = await state(p);
      expect(last.counts).toEqual([{ rows: "6000", distinct: "6000", runs: ["d"] }]);
      expect(last.leftovers).toEqual([]);
    });
  });

  describe("from Postgres", () => {
    let server: PostgresInstance;
    beforeAll(async () => {
      server = await startPostgres();
    });
    afterAll(async () => {
      await server?.stop();
    });
    const sql = async (url: string, text: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return await client.query(text);
      } finally {
        await client.end();
      }
    };

    it("loads every common type exactly, then only what changed", async () => {
      const src = await createDatabase(server.url, "clickhouse_e2e");
      await sql(
        src,
        `create table public.items (
           id bigint primary key, i2 smallint, i4 integer, i8 bigint, num numeric(30,10), f8 double precision, b boolean,
           t text, by bytea, d date, ts timestamp, tstz timestamptz not null, tm time, u uuid, j jsonb, arr integer[], tarr text[]);
         insert into public.items values
           (1, -32768, 2147483647, 9007199254740993, 12345678901234567890.1234567890, 3.141592653589793, true,
            'é\u{1F600}''q', '\\xdeadbeef', '2026-02-28', '2026-10-12 16:00:00.123456', '2026-10-12 18:00:00.000001+02',
            '23:59:59.999999', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2]}', '{1,NULL,3}', '{"x","y z"}'),
           (2, null, null, null, null, null, null, null, null, null, null, '2026-10-12 16:00:00+00', null, null, null, null, null);`,
      );
      const p = new ClickHouseProject(tableModule({}), "").toml(
        `[sources.app]\nconnector = "postgres"\nurl = "${src}"\n\n[sources.app.tables."public.items"]\ncursor_column = "tstz"\nprimary_key = ["id"]\n`,
      );
      const first = await p.ok("load", "app");
      expect(first.stdout).toContain("loaded raw.app__items 2 rows");
      const [row, nulls] = await p.query<Record<string, unknown>>(
        `SELECT i2, i4, toString(i8) AS i8, toString(num) AS num, f8, b, t, hex(by) AS by, toString(d) AS d, toString(ts) AS ts,
                toString(toUnixTimestamp64Micro(tstz)) AS tstz, toString(tm) AS tm, toString(u) AS u, j, arr, tarr
         FROM raw.app__items ORDER BY id`,
      );
      expect(row).toEqual({
        i2: -32768,
        i4: 2147483647,
        i8: "9007199254740993",
        num: "12345678901234567890.123456789",
        f8: Math.PI,
        b: true,
        t: "é\u{1F600}'q",
        by: "DEADBEEF",
        d: "2026-02-28",
        ts: "2026-10-12 16:00:00.123456",
        tstz: String(Date.UTC(2026, 9, 12, 16) * 1000 + 1),
        tm: "23:59:59.999999",
        u: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        j: expect.stringMatching(/^\{"a": ?\[1, ?2\]\}$/),
        arr: [1, null, 3],
        tarr: ["x", "y z"],
      });
      expect(
        Object.entries(nulls as object).filter(([k, v]) => k !== "tstz" && v !== null && !(Array.isArray(v) && v.length === 0)),
      ).toEqual([]);

      // The row at the maximum changes and a row is added: the read from the maximum replaces both.
      await sql(
        src,
        "update public.items set t = 'updated' where id = 1; insert into public.items (id, tstz) values (3, '2026-10-14 00:00:00+00')",
      );
      const second = await p.ok("load", "app");
      expect(second.stdout).toContain("loaded raw.app__items 2 rows");
      expect(await p.query("SELECT toString(id) AS id, t FROM raw.app__items ORDER BY id")).toEqual([
        { id: "1", t: "updated" },
        { id: "2", t: null },
        { id: "3", t: null },
      ]);
    });
  });
});
