import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createDatabase, type PostgresInstance, startPostgres } from "@sqlload/testing";
import { requestMatching } from "@sqlload/testing/emulator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, DatabricksProject, removeProjects } from "./cli.js";
import { EmulatedWarehouse, type WritePath } from "./harness.js";

// SPEC §6 on Databricks: the built CLI is SIGKILLed while a request is in flight at the
// emulated warehouse (held there until the process is gone), then a rerun must end exactly
// equal to the source, with nothing doubled. On the data-then-log model the kill lands between
// the data's commit and its run-log record: the data is ahead of the log, and the data wins.
const built = existsSync(CLI);

const ORDERS = 3000;
const TABLES = `[sources.app.tables."public.orders"]
cursor_column = "updated_at"
primary_key = ["id"]
cursor_start = "2026-01-01"
batch_size = "1d"
`;

describe.runIf(built)("crash safety of the Databricks target (built CLI, emulated warehouse)", () => {
  let postgres: PostgresInstance;
  let warehouse: EmulatedWarehouse;
  let databases = 0;

  beforeAll(async () => {
    postgres = await startPostgres();
    warehouse = await EmulatedWarehouse.start();
  }, 60_000);
  afterAll(async () => {
    await warehouse?.close();
    await postgres?.stop();
    removeProjects();
  });

  /** A source of 3,000 orders over 3 days and a fresh target schema; the project loads them in 1-day windows. */
  async function setUp(
    transactions: "atomic" | "none",
    path: WritePath = "insert",
  ): Promise<{ p: DatabricksProject; expected: string[] }> {
    const url = await createDatabase(postgres.url, `crash_${++databases}`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(12,2), updated_at timestamptz NOT NULL);
      INSERT INTO orders SELECT i, (i % 1000) / 10.0, TIMESTAMPTZ '2026-01-01 00:00:00+00' + (i * 86.4) * INTERVAL '1 second'
      FROM generate_series(0, ${ORDERS - 1}) AS i;`);
    const expected = (await client.query("SELECT id::text || ':' || amount::text AS r FROM orders ORDER BY id")).rows.map(
      (r: { r: string }) => r.r,
    );
    await client.end();
    await warehouse.emulator.database.query('DROP SCHEMA IF EXISTS "sqlload"."raw" CASCADE');
    warehouse.emulator.abandonHeld();
    warehouse.emulator.failures.reset();
    return { p: new DatabricksProject(warehouse, transactions, url, TABLES, path), expected };
  }

  async function targetRows(): Promise<string[]> {
    const result = await warehouse.emulator.database.query(
      `SELECT CAST(id AS VARCHAR) || ':' || CAST(amount AS VARCHAR) FROM "sqlload"."raw"."app__orders" ORDER BY id`,
    );
    return result.rows.map((r) => String(r[0]));
  }

  async function runLog(): Promise<number> {
    const result = await warehouse.emulator.database.query(
      `SELECT count(*) FROM "sqlload"."raw"."_sqlload_runs" WHERE target_name = 'raw.app__orders'`,
    );
    return Number(result.rows[0]?.[0]);
  }

  /** Starts `load`, waits until the `nth` request matching `shape` arrives (held), and SIGKILLs the CLI. */
  async function killAt(p: DatabricksProject, shape: string, nth: number, flags: readonly string[] = []): Promise<void> {
    const failures = warehouse.emulator.failures;
    let seen = 0;
    const arrived = failures.holdNext((r) => requestMatching({ shape })(r) && ++seen === nth);
    const child = p.start(["load", ...flags]);
    let output = "";
    child.stdout?.on("data", (d) => (output += d));
    child.stderr?.on("data", (d) => (output += d));
    const closed = once(child, "close");
    const ended = await Promise.race([arrived.then(() => false), closed.then(() => true)]);
    if (ended) throw new Error(`the load ended before its request ${shape} #${nth}:\n${output}`);
    child.kill("SIGKILL");
    await closed;
  }

  it("data-then-log: killed between a window's data commit and its run-log record, the rerun ends exact", async () => {
    const { p, expected } = await setUp("none");
    await killAt(p, "run_log_insert", 2);
    // Two windows' data landed, but only the first window's record.
    const afterKill = await targetRows();
    expect(afterKill.length).toBe(2000);
    expect(await runLog()).toBe(1);
    await p.ok("load");
    expect(await targetRows()).toEqual(expected);
    const again = await p.ok("load");
    expect(again.stdout).toMatch(/loaded raw\.app__orders/);
    expect(await targetRows()).toEqual(expected);
  }, 240_000);

  it("data-then-log: killed during a window's data statement, nothing of it lands and the rerun ends exact", async () => {
    const { p, expected } = await setUp("none");
    // A new table holds no rows in any window: each inserts its build's rows, with no REPLACE WHERE.
    await killAt(p, "insert_select", 2);
    expect((await targetRows()).length).toBe(1000);
    await p.ok("load");
    expect(await targetRows()).toEqual(expected);
    // Read again from the start, every window replaces its rows: killed in the second REPLACE WHERE,
    // the first window's rows are replaced and the second's are all still there.
    await killAt(p, "replace_where", 2, ["--start-cursor", "2026-01-01"]);
    expect(await targetRows()).toEqual(expected);
    await p.ok("load", "--start-cursor", "2026-01-01");
    expect(await targetRows()).toEqual(expected);
  }, 240_000);

  it("atomic: killed while a window's BEGIN ATOMIC block is in flight, the rerun ends exact", async () => {
    const { p, expected } = await setUp("atomic");
    await killAt(p, "begin_atomic", 3);
    expect((await targetRows()).length).toBe(2000);
    expect(await runLog()).toBe(2);
    await p.ok("load");
    expect(await targetRows()).toEqual(expected);
    // The rerun logged the windows it committed, after the two the killed run had.
    expect(await runLog()).toBeGreaterThan(2);
  }, 240_000);

  it("atomic: a block that lands after its client was killed is not loaded twice", async () => {
    const { p, expected } = await setUp("atomic");
    await killAt(p, "begin_atomic", 2);
    // The warehouse finishes the statement the dead client sent: both windows' data and records land.
    warehouse.emulator.failures.releaseHeld();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await targetRows()).length).toBe(2000);
    await p.ok("load");
    expect(await targetRows()).toEqual(expected);
  }, 240_000);

  // The bulk path (each 1,000-row window staged as Parquet in the volume): killed after a window's
  // upload (its COPY INTO in flight) and after its load (the data commit, or the run-log record,
  // in flight). The rerun ends exact, and sweeps the file the killed run left in the volume.
  const BULK = { threshold: 100 } as const;
  const bulkKills = [
    ["none", "copy_into", 1000, 1, "after the upload"],
    ["none", "run_log_insert", 2000, 1, "after the load and the data commit, before the run-log record"],
    ["atomic", "copy_into", 1000, 1, "after the upload"],
    ["atomic", "begin_atomic", 1000, 1, "after the load, before the block with the data and its record"],
  ] as const;
  for (const [transactions, shape, rows, records, when] of bulkKills) {
    it(`bulk path, ${transactions === "none" ? "data-then-log" : "atomic"}: killed ${when}, the rerun ends exact`, async () => {
      const { p, expected } = await setUp(transactions, BULK);
      await killAt(p, shape, 2);
      warehouse.emulator.abandonHeld();
      expect((await targetRows()).length).toBe(rows);
      expect(await runLog()).toBe(records);
      // The window the killed run was in left its staged file behind.
      expect(warehouse.emulator.volumes.paths).toHaveLength(1);
      await p.ok("load");
      expect(await targetRows()).toEqual(expected);
      expect(warehouse.emulator.volumes.paths).toEqual([]);
      expect(warehouse.emulator.failures.requests.some((r) => r.shapes.includes("copy_into"))).toBe(true);
    }, 240_000);
  }

  // Core refuses logged-state tables on a `data-then-log` target before anything connects: checkpoints
  // could not stay exactly once when the log commits after the data.
  it('refuses a logged-state table on the data-then-log model with a coded error naming `transactions = "atomic"`', async () => {
    const { p } = await setUp("none");
    writeFileSync(
      join(p.dir, "events.ts"),
      `import { checkpoint, source } from "sqlload";
const src = source("api");
export const events = src.table(
  { writeStrategy: "append", state: "logged", columns: { id: "bigint not null" } },
  async function* events() {
    yield [{ id: 1 }];
    yield checkpoint(1);
  },
);
`,
    );
    writeFileSync(
      join(p.dir, "sqlload.toml"),
      `${readFileSync(join(p.dir, "sqlload.toml"), "utf8")}\n[sources.api]\nconnector = "typescript"\nmodule = "events.ts"\n`,
    );
    const before = warehouse.emulator.failures.requests.length;
    const result = await p.run(["load", "api__events"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("SL116");
    expect(result.stdout + result.stderr).toContain('transactions = "atomic"');
    // Refused before the target was asked anything.
    expect(warehouse.emulator.failures.requests.length).toBe(before);
    const landed = await warehouse.emulator.database.query(
      "SELECT count(*) FROM information_schema.tables WHERE table_catalog = 'sqlload' AND table_name = 'api__events'",
    );
    // The table may exist (created before its first unit), but no row and no record landed.
    if (Number(landed.rows[0]?.[0]) > 0) {
      const rows = await warehouse.emulator.database.query('SELECT count(*) FROM "sqlload"."raw"."api__events"');
      expect(Number(rows.rows[0]?.[0])).toBe(0);
    }
    const records = await warehouse.emulator.database
      .query(`SELECT count(*) FROM "sqlload"."raw"."_sqlload_runs" WHERE target_name = 'raw.api__events'`)
      .catch(() => ({ rows: [[0]] }));
    expect(Number(records.rows[0]?.[0])).toBe(0);
  }, 120_000);
});
