import { existsSync } from "node:fs";
import { SQLLOAD_CLI } from "@sqlload/testing";
import { describe, expect, it } from "vitest";
import { BigQueryProject } from "./cli-project.js";
import { openTarget, readerFor, readTable } from "./harness.js";
import { postgresAndEmulator } from "./postgres-and-emulator.js";

// Postgres → BigQuery through the built CLI (`pnpm build` first), the emulator in this process.
const built = existsSync(SQLLOAD_CLI);

describe.runIf(built)("sqlload from Postgres into BigQuery (built CLI, emulator)", () => {
  const fixture = postgresAndEmulator("bigquery_e2e");
  const sql = (text: string) => fixture.sql(text);
  const options = () => ({ project: "sqlload-e2e", api_endpoint: fixture.emulator.endpoint, access_token: "e2e-token" });
  const rows = async () => {
    const all = (await readTable(readerFor(options()), "raw", "app__orders")) ?? [];
    return all
      .map((r) => ({ id: r.id, amount: r.amount, big: r.big, note: r.note, at: r.updated_at }))
      .sort((a, b) => Number((a.id as bigint) - (b.id as bigint)));
  };
  const sourceRows = async () =>
    (
      await sql(
        "SELECT id::text, amount::text, big::text, note, (extract(epoch from updated_at) * 1000000)::bigint::text AS at FROM orders ORDER BY orders.id",
      )
    ).map((r) => ({
      id: BigInt(r.id as string),
      amount: r.amount,
      big: BigInt(r.big as string),
      note: r.note,
      at: BigInt(r.at as string),
    }));

  it("loads, continues from the maximum, reloads a range and rebuilds with --reload", async () => {
    await sql(`CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(12,2), big bigint, note text, updated_at timestamptz NOT NULL);
      INSERT INTO orders VALUES
        (1, 10.50, 9007199254740993, 'first', '2026-10-12 16:00:00.000001+00'),
        (2, 20.00, -9223372036854775808, 'B1', '2026-10-12 17:00:00+00'),
        (3, 30.00, 1, 'a9', '2026-10-13 09:00:00+00')`);
    const p = new BigQueryProject(
      options(),
      `[sources.app]\nconnector = "postgres"\nurl = "${fixture.src}"\n\n[sources.app.tables."public.orders"]\ncursor_column = "updated_at"\nprimary_key = ["id"]\n`,
    );
    expect((await p.ok("connectors")).stdout).toMatch(/bigquery/);
    expect((await p.ok("load")).stdout).toContain("loaded raw.app__orders 3 rows");
    expect(await rows()).toEqual(await sourceRows());
    const table = await fixture.emulator.catalog.requireTable("raw", "app__orders");
    expect(table.timePartitioning).toEqual({ type: "DAY", field: "updated_at" });
    expect(table.clustering).toEqual({ fields: ["id"] });
    const plan = await p.ok("plan");
    expect(plan.stdout).toContain("2026-10-13 09:00:00.000000+00 (destination maximum)");

    // Incremental: the row at the maximum changes, one row is new, a late row before it is not read.
    await sql(`UPDATE orders SET note = 'changed at the maximum' WHERE id = 3;
      INSERT INTO orders VALUES (4, 40.00, 4, 'new', '2026-10-14 00:00:00+00'), (5, 1.00, 5, 'late', '2026-10-01 00:00:00+00')`);
    expect((await p.ok("load")).stdout).toContain("loaded raw.app__orders 2 rows");
    const late = (await sourceRows()).filter((r) => r.id !== 5n);
    expect(await rows()).toEqual(late);

    // A range reload replaces exactly [2026-10-01, 2026-10-13): the late row lands, nothing doubles.
    await sql("UPDATE orders SET note = 'fixed' WHERE id = 1");
    await p.ok("load", "--start-cursor", "2026-10-01", "--end-cursor", "2026-10-13");
    expect(await rows()).toEqual(await sourceRows());

    // --reload builds a new table and swaps it in with CREATE OR REPLACE TABLE … COPY.
    await sql("DELETE FROM orders WHERE id = 2");
    await p.ok("load", "--reload");
    expect(await rows()).toEqual(await sourceRows());
    const left = (await fixture.emulator.catalog.list("raw")).map((t) => t.tableReference.tableId);
    expect(left.sort()).toEqual(["_sqlload_locks", "_sqlload_runs", "app__orders"]);
    expect(fixture.emulator.failures.requests.some((r) => r.shapes.includes("copy"))).toBe(true);
    // Every job carried the project's labels; rows went in by load jobs, never streaming.
    expect(fixture.emulator.jobLog.length).toBeGreaterThan(0);
    const labels = fixture.emulator.jobLog.map(
      (job) =>
        (job as { labels?: unknown; load?: { labels?: unknown } }).labels ??
        (job as { load?: { labels?: unknown } }).load?.labels,
    );
    const cli = labels.filter((l) => (l as Record<string, string>).sqlload_test !== "reader");
    expect(cli.length).toBeGreaterThan(5);
    for (const l of cli) expect(l).toEqual({ team: "data" });
    const log = (await readTable(readerFor(options()), "raw", "_sqlload_runs")) ?? [];
    expect(log.filter((r) => r.target_name === "app__orders").length).toBeGreaterThanOrEqual(4);

    // While another run holds the table's lock, the table is skipped as retryable: exit 75, SL306.
    const other = await openTarget(options(), "raw");
    const lock = await other.lockTable({ schema: "raw", name: "app__orders" });
    try {
      const busy = await p.run(["load"]);
      expect(busy.code).toBe(75);
      expect(busy.stdout + busy.stderr).toMatch(/SL306/);
    } finally {
      await lock.release();
    }
  });
});
