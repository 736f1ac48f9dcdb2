import { existsSync } from "node:fs";
import { createDatabase, type PostgresInstance, startPostgres } from "@sqlload/testing";
import { SnowflakeEmulator } from "@sqlload/testing/emulator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, removeProjects, SnowflakeProject } from "./cli.js";

// Postgres → Snowflake through the built CLI (a child process) and snowflake-sdk, against the
// emulator in this process. The CLI must be built (`pnpm build`). Every commit takes the bulk path
// (`bulk_load_rows = 0`: gzip CSV files, PUT, COPY INTO); the crash tests run the INSERT path too.
const built = existsSync(CLI);

describe.runIf(built)("sqlload into Snowflake (built CLI, emulator)", () => {
  let server: PostgresInstance;
  let emulator: SnowflakeEmulator;
  beforeAll(async () => {
    server = await startPostgres();
    emulator = await SnowflakeEmulator.start();
  });
  afterAll(async () => {
    await emulator?.close();
    await server?.stop();
    removeProjects();
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
  const rows = async (table: string) =>
    (
      await emulator.database.query(
        `SELECT CAST(id AS VARCHAR) AS id, CAST(big AS VARCHAR) AS big, k, CAST(epoch_us("at") AS VARCHAR) AS "at" FROM raw."${table}" ORDER BY id`,
      )
    ).rows.map((r) => r.map((v) => (v === null ? null : String(v))));
  const sourceRows = async (url: string) =>
    (
      await sql(
        url,
        `SELECT id::text AS id, big::text AS big, k, (extract(epoch from at) * 1000000)::bigint::text AS at FROM public.events ORDER BY id`,
      )
    ).rows.map((r) => [r.id, r.big, r.k, r.at]);

  it("lists the connector, loads, continues from the maximum, reloads a range and the whole table", async () => {
    const src = await createDatabase(server.url, "snowflake_e2e");
    await sql(
      src,
      `create table public.events (id bigint primary key, big numeric(38,0), k text collate "en-US-x-icu", at timestamptz not null);
       insert into public.events values
         (1, 9007199254740993, 'B1', '2026-10-12 16:00:00.000001+00'),
         (2, 99999999999999999999999999999999999999, 'a9', '2026-10-12 17:00:00+00'),
         (3, null, null, '2026-10-13 00:00:00+00');`,
    );
    const p = new SnowflakeProject(
      emulator,
      src,
      `[sources.app.tables."public.events"]\ncursor_column = "at"\nprimary_key = ["id"]\n`,
    ).setTarget("bulk_load_rows = 0");
    expect((await p.ok("connectors")).stdout).toMatch(/snowflake/);
    expect((await p.ok("load")).stdout).toContain("loaded raw.app__events 3 rows");
    expect(await rows("app__events")).toEqual(await sourceRows(src));

    await sql(
      src,
      "update public.events set k = 'changed' where id = 3; insert into public.events values (4, 1, 'new', '2026-10-14 00:00:00+00')",
    );
    expect((await p.ok("load")).stdout).toContain("loaded raw.app__events 2 rows");
    expect(await rows("app__events")).toEqual(await sourceRows(src));

    // A range reload replaces exactly [start, end): the row changed inside it comes back, the one outside stays.
    await sql(src, "update public.events set k = 'in range' where id = 2; update public.events set k = 'outside' where id = 4");
    await p.ok("load", "--start-cursor", "2026-10-12T17:00:00Z", "--end-cursor", "2026-10-13T00:00:00Z");
    const ranged = await rows("app__events");
    expect(ranged.map((r) => r[2])).toEqual(["B1", "in range", "changed", "new"]);

    await p.ok("load", "--reload");
    expect(await rows("app__events")).toEqual(await sourceRows(src));
    expect(emulator.openSessions).toBe(0);
    const shapes = emulator.failures.requests.flatMap((r) => r.shapes);
    // One PUT and one COPY per commit that had rows (first run, second run, range, reload), no INSERT of rows.
    expect(shapes.filter((s) => s === "put")).toHaveLength(4);
    expect(shapes.filter((s) => s === "copy")).toHaveLength(4);
    const staged = emulator.failures.requests.filter(
      (r) => r.shapes.includes("insert_values") && r.statement?.includes("_sqlload_stage_"),
    );
    expect(staged).toEqual([]);
    expect(emulator.stages.allFiles()).toEqual([]);
  });
});
