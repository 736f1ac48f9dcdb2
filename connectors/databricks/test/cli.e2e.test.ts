import { existsSync } from "node:fs";
import { createDatabase, type PostgresInstance, startPostgres } from "@sqlload/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, DatabricksProject, removeProjects } from "./cli.js";
import { EmulatedWarehouse } from "./harness.js";

// Postgres → Databricks end to end through the built CLI (`pnpm build` first), with the
// connector installed in the project and the emulated warehouse in this process.
const built = existsSync(CLI);

const TABLES = `[sources.app.tables."public.orders"]
cursor_column = "updated_at"
primary_key = ["id"]

[sources.app.tables."public.customers"]
cursor_column = "seen"
write_strategy = "merge"
primary_key = ["id"]
`;

describe.runIf(built)("sqlload into Databricks (built CLI, emulated warehouse)", () => {
  let postgres: PostgresInstance;
  let warehouse: EmulatedWarehouse;
  let source: pg.Client;

  beforeAll(async () => {
    postgres = await startPostgres();
    warehouse = await EmulatedWarehouse.start();
  }, 60_000);
  afterAll(async () => {
    await source?.end();
    await warehouse?.close();
    await postgres?.stop();
    removeProjects();
  });

  const rows = async (table: string) =>
    (
      await warehouse.emulator.database.query(
        `SELECT CAST(id AS VARCHAR) AS id, * EXCLUDE (id) FROM "sqlload"."raw"."${table}" ORDER BY id`,
      )
    ).rows.map((r) => r.map((v) => (v === null ? null : String(v))));

  // "auto" sends every unit as INSERTs; "none" has a volume, and its units of 3 rows or more go
  // through it (the first load and the reload of orders), the smaller ones as INSERTs.
  for (const [transactions, path] of [
    ["auto", "insert"],
    ["none", { threshold: 3 }],
  ] as const) {
    it(`loads, continues, reloads a range and reloads all (transactions = "${transactions}", ${path === "insert" ? "INSERT" : "volume"})`, async () => {
      const url = await createDatabase(postgres.url, `e2e_${transactions}`);
      source = new pg.Client({ connectionString: url });
      await source.connect();
      await source.query(`CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(12,2), note text, updated_at timestamptz NOT NULL);
        CREATE TABLE customers (id bigint PRIMARY KEY, name text, seen bigint);
        INSERT INTO orders VALUES (1, 10.50, 'first', '2026-10-12 16:00:00.000001+00'), (2, 20.00, 'B1', '2026-10-12 17:00:00+00'),
          (9007199254740993, 1.00, 'big id', '2026-10-11 08:00:00+00');
        INSERT INTO customers VALUES (1, 'Ada', 1), (2, 'Grace', 2);`);
      await warehouse.emulator.database.query('DROP SCHEMA IF EXISTS "sqlload"."raw" CASCADE');
      const p = new DatabricksProject(warehouse, transactions, url, TABLES, path);
      const requestsBefore = warehouse.emulator.failures.requests.length;

      const listed = await p.ok("connectors");
      expect(listed.stdout).toMatch(/databricks/);
      const first = await p.ok("load");
      expect(first.stdout).toContain("loaded raw.app__orders 3 rows");
      expect(first.stdout + first.stderr).not.toContain(warehouse.emulator.token);
      expect(await rows("app__orders")).toEqual([
        ["1", "10.50", "first", "2026-10-12 16:00:00.000001+00"],
        ["2", "20.00", "B1", "2026-10-12 17:00:00+00"],
        ["9007199254740993", "1.00", "big id", "2026-10-11 08:00:00+00"],
      ]);

      const plan = await p.ok("plan", "app__orders");
      expect(plan.stdout).toContain("2026-10-12 17:00:00.000000+00 (destination maximum)");

      // Second run: the row at the maximum changed, one row is new; customers merge.
      await source.query(`UPDATE orders SET note = 'changed at the maximum' WHERE id = 2;
        INSERT INTO orders VALUES (3, 30.00, 'new', '2026-10-13 09:00:00+00');
        UPDATE customers SET name = 'Grace Hopper', seen = 3 WHERE id = 2; INSERT INTO customers VALUES (3, 'Edsger', 4);`);
      const second = await p.ok("load");
      expect(second.stdout).toContain("loaded raw.app__orders 2 rows");
      expect((await rows("app__orders")).map((r) => r[2])).toEqual(["first", "changed at the maximum", "new", "big id"]);
      expect(await rows("app__customers")).toEqual([
        ["1", "Ada", "1"],
        ["2", "Grace Hopper", "3"],
        ["3", "Edsger", "4"],
      ]);

      // A range reload replaces exactly [start, end).
      await source.query(`UPDATE orders SET note = 'fixed' WHERE id IN (1, 9007199254740993)`);
      await p.ok("load", "app__orders", "--start-cursor", "2026-10-12T00:00:00Z", "--end-cursor", "2026-10-12T17:00:00Z");
      expect((await rows("app__orders")).map((r) => r[2])).toEqual(["fixed", "changed at the maximum", "new", "big id"]);

      // --reload rebuilds the table from scratch (CREATE OR REPLACE … AS SELECT).
      await p.ok("load", "app__orders", "--reload");
      expect((await rows("app__orders")).map((r) => r[2])).toEqual(["fixed", "changed at the maximum", "new", "fixed"]);

      const log = await warehouse.emulator.database.query(
        `SELECT target_name, count(*)::VARCHAR FROM "sqlload"."raw"."_sqlload_runs" GROUP BY target_name ORDER BY target_name`,
      );
      expect(log.rows).toEqual([
        ["raw.app__customers", "2"],
        ["raw.app__orders", "4"],
      ]);
      // No build tables or locks are left behind.
      const left = await warehouse.emulator.database.query(
        `SELECT table_name FROM information_schema.tables WHERE table_catalog = 'sqlload' AND table_schema = 'raw' AND table_name LIKE '\\_sqlload\\_build%' ESCAPE '\\'`,
      );
      expect(left.rows).toEqual([]);
      const locks = await warehouse.emulator.database.query(`SELECT count(*)::VARCHAR FROM "sqlload"."raw"."_sqlload_locks"`);
      expect(locks.rows).toEqual([["0"]]);
      // Nor any staged file; the volume was used exactly when it was set.
      expect(warehouse.emulator.volumes.paths).toEqual([]);
      const loads = warehouse.emulator.failures.requests.slice(requestsBefore).filter((r) => r.shapes.includes("copy_into"));
      expect(loads.length).toBe(path === "insert" ? 0 : 2);
      await source.end();
    }, 180_000);
  }
});
