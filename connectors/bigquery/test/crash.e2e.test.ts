import { existsSync } from "node:fs";
import { createDatabase, type PostgresInstance, SQLLOAD_CLI, startPostgres } from "@sqlload/testing";
import type { RequestInfo } from "@sqlload/testing/emulator";
import { BigQueryEmulator } from "@sqlload/testing/emulator/bigquery";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BigQueryProject } from "./cli-project.js";
import { readerFor, readTable } from "./harness.js";

// SIGKILL of the built CLI while a request of the second window's unit is in flight (held by the
// emulator): during its stage load, during its commit script, and during the stage drop after
// the commit. The rerun must end exactly equal to the source, nothing doubled, no stage left.
const built = existsSync(SQLLOAD_CLI);

describe.runIf(built)("a load into BigQuery killed mid-unit, then run again", () => {
  let server: PostgresInstance;
  let src: string;
  beforeAll(async () => {
    server = await startPostgres();
    src = await createDatabase(server.url, "bigquery_crash");
    const client = new pg.Client({ connectionString: src });
    await client.connect();
    await client.query(`CREATE TABLE events (id bigint PRIMARY KEY, at timestamptz NOT NULL, v text);
      INSERT INTO events SELECT g, TIMESTAMPTZ '2026-10-01 00:00:00+00' + (g * INTERVAL '37 minutes'), 'v' || g FROM generate_series(1, 300) g`);
    await client.end();
  });
  afterAll(async () => {
    BigQueryProject.removeAll();
    await server?.stop();
  });

  const second = (test: (r: RequestInfo) => boolean) => {
    let seen = 0;
    return (r: RequestInfo) => test(r) && ++seen === 2;
  };
  const points: [string, (r: RequestInfo) => boolean][] = [
    ["the stage load", second((r) => r.operation === "upload")],
    ["the commit script", second((r) => r.operation === "jobs.insert" && r.shapes.includes("run_log_insert"))],
    ["the stage drop", second((r) => r.operation === "tables.delete")],
  ];

  for (const [point, matcher] of points) {
    it(`killed during ${point}`, async () => {
      const emulator = await BigQueryEmulator.start();
      try {
        const options = { project: "sqlload-crash", api_endpoint: emulator.endpoint, access_token: "t", lock_ttl: 1 };
        const p = new BigQueryProject(
          options,
          `[sources.app]\nconnector = "postgres"\nurl = "${src}"\n\n[sources.app.tables."public.events"]\ncursor_column = "at"\nprimary_key = ["id"]\nbatch_size = "1d"\ncursor_start = "2026-10-01"\n`,
        );
        const held = emulator.failures.holdNext(matcher);
        const child = p.start(["load"]);
        const exited = new Promise((resolve) => child.once("close", resolve));
        await held;
        child.kill("SIGKILL");
        await exited;
        // Killed with the unit's stage in place (the drop is held, not yet done).
        const tables = (await emulator.catalog.list("raw")).map((t) => t.tableReference.tableId);
        expect(tables.some((t) => t.startsWith("_sqlload_stage_"))).toBe(true);
        emulator.failures.releaseHeld();
        await new Promise((resolve) => setTimeout(resolve, 1500)); // the killed run's lock row expires

        await p.ok("load");
        const rows = (await readTable(readerFor(options), "raw", "app__events")) ?? [];
        const ids = rows.map((r) => r.id as bigint).sort((a, b) => Number(a - b));
        expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => BigInt(i + 1)));
        expect(rows.find((r) => r.id === 7n)?.v).toBe("v7");
        const left = (await emulator.catalog.list("raw")).map((t) => t.tableReference.tableId).sort();
        expect(left).toEqual(["_sqlload_locks", "_sqlload_runs", "app__events"]);
      } finally {
        await emulator.stop();
      }
    });
  }
});
