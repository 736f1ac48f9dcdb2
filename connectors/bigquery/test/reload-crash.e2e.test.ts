import { existsSync } from "node:fs";
import { SQLLOAD_CLI } from "@sqlload/testing";
import type { RequestInfo } from "@sqlload/testing/emulator";
import { describe, expect, it } from "vitest";
import { BigQueryProject } from "./cli-project.js";
import { readerFor, readTable } from "./harness.js";
import { postgresAndEmulator } from "./postgres-and-emulator.js";

// A `--reload` swaps its build in with one DDL statement, which cannot join a transaction, so its
// run-log record follows in a transaction of its own. SIGKILL between the two: the new table is
// in place without its record. The next run must still end exactly equal to the source.
const built = existsSync(SQLLOAD_CLI);

describe.runIf(built)("a --reload into BigQuery killed between the swap and its run-log record", () => {
  const fixture = postgresAndEmulator("bigquery_reload_crash");
  const sql = (text: string) => fixture.sql(text);
  const options = () => ({ project: "sqlload-reload", api_endpoint: fixture.emulator.endpoint, access_token: "t", lock_ttl: 1 });
  const targetRows = async () =>
    ((await readTable(readerFor(options()), "raw", "app__items")) ?? [])
      .map((r) => ({ id: r.id as bigint, v: r.v }))
      .sort((a, b) => Number(a.id - b.id));
  const sourceRows = async () =>
    (await sql("SELECT id::text, v FROM items ORDER BY items.id")).map((r) => ({ id: BigInt(r.id as string), v: r.v }));
  const records = async () =>
    ((await readTable(readerFor(options()), "raw", "_sqlload_runs")) ?? []).filter((r) => r.target_name === "app__items");

  it("keeps the swapped table, lands no record, and the next run ends equal to the source", async () => {
    await sql(`CREATE TABLE items (id bigint PRIMARY KEY, v text);
      INSERT INTO items SELECT g, 'v' || g FROM generate_series(1, 200) g`);
    const p = new BigQueryProject(
      options(),
      `[sources.app]\nconnector = "postgres"\nurl = "${fixture.src}"\n\n[sources.app.tables."public.items"]\ncursor_column = "id"\nprimary_key = ["id"]\n`,
    );
    await p.ok("load");
    expect(await targetRows()).toEqual(await sourceRows());
    // An integer cursor: the new table is partitioned by integer ranges and clustered on the key.
    expect(await fixture.emulator.catalog.requireTable("raw", "app__items")).toMatchObject({
      rangePartitioning: { field: "id", range: { start: "0", end: "10000000000", interval: "1000000" } },
      clustering: { fields: ["id"] },
    });
    // `plan` reads the maximum bounded below by the logged position, and asks a dry run what the range delete would scan.
    const jobsBefore = fixture.emulator.jobLog.length;
    const plan = await p.ok("plan");
    expect(plan.stdout).toMatch(/the range delete scans 0 bytes/);
    const queries = fixture.emulator.jobLog.slice(jobsBefore).map((j) => (j as { query?: { query?: string } }).query?.query);
    expect(queries).toContain("SELECT CAST(MAX(`id`) AS STRING) AS v FROM `raw`.`app__items` WHERE `id` >= 200");
    const logged = (await records()).length;

    // A row below the maximum changes (only a reload picks it up) and rows are added.
    await sql(
      `UPDATE items SET v = 'changed' WHERE id = 7; INSERT INTO items SELECT g, 'v' || g FROM generate_series(201, 220) g`,
    );
    const recordAfterSwap = (r: RequestInfo) =>
      r.operation === "jobs.insert" &&
      r.shapes.includes("run_log_insert") &&
      !r.shapes.some((s) => s === "insert_select" || s === "merge" || s === "delete_range");
    const held = fixture.emulator.holdNextUnsent(recordAfterSwap);
    const requestsBefore = fixture.emulator.failures.requests.length;
    const child = p.start(["load", "--reload"]);
    const exited = new Promise((resolve) => child.once("close", resolve));
    await held;
    expect(fixture.emulator.failures.requests.slice(requestsBefore).some((r) => r.shapes.includes("copy"))).toBe(true);
    child.kill("SIGKILL");
    await exited;
    fixture.emulator.failures.releaseHeld(); // the killed process never sent it: the record does not land

    // The swap is done, the record is not: the table is the reloaded one, the log still says the first run.
    expect(await targetRows()).toEqual(await sourceRows());
    expect(await records()).toHaveLength(logged);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the killed run's lock row expires

    await sql("INSERT INTO items VALUES (221, 'v221')");
    await p.ok("load");
    expect(await targetRows()).toEqual(await sourceRows());
    const left = (await fixture.emulator.catalog.list("raw")).map((t) => t.tableReference.tableId).sort();
    expect(left).toEqual(["_sqlload_locks", "_sqlload_runs", "app__items"]);
    const last = (await records()).at(-1);
    expect(JSON.parse(String(last?.body))).toMatchObject({ event: "run", cursor: { kind: "integer", value: "221" } });
  });
});
