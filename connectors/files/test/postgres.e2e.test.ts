import { join } from "node:path";
import { type PostgresInstance, startPostgres } from "@sqlload/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Manifest } from "../src/index.js";
import { ok, project } from "./e2e.js";
import { targetRows } from "./harness.js";

// Postgres into the files target through the built CLI: types, a timestamptz cursor, and a
// second run that replaces the rows at the maximum without doubling them.
let server: PostgresInstance;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

describe("Postgres into files", () => {
  it("loads typed rows into Parquet, then continues from the manifest's maximum", async () => {
    await sql(`
      create table public.orders (id bigint primary key, amount numeric(12,2), note text, tags text[], at timestamptz not null);
      insert into public.orders values
        (1, 19.90, 'é\u{1F600}', '{a,b}', '2026-10-01 10:00:00.123456+00'),
        (2, null, null, null, '2026-10-01 11:00:00+02'),
        (3, 5.00, 'three', '{}', '2026-10-02 09:00:00+00');`);
    const dir = project(`[target]
connector = "files"
path = "lake"

[sources.app]
connector = "postgres"
url = "${server.url}"

[sources.app.tables."public.orders"]
cursor_column = "at"
primary_key = ["id"]
`);
    await ok(["load"], dir);
    await sql(`update public.orders set note = 'changed' where id = 3;
               insert into public.orders values (4, 1.00, 'four', '{c}', '2026-10-03 00:00:00+00');`);
    await ok(["load"], dir);
    const ref = { schema: "raw", name: "app__orders" };
    const rows = await targetRows(join(dir, "lake"), ref, "id");
    expect(rows).toEqual([
      { id: "1", amount: "19.90", note: "é\u{1F600}", tags: ["a", "b"], at: "2026-10-01 10:00:00.123456+00" },
      { id: "2", amount: null, note: null, tags: null, at: "2026-10-01 09:00:00+00" },
      { id: "3", amount: "5.00", note: "changed", tags: [], at: "2026-10-02 09:00:00+00" },
      { id: "4", amount: "1.00", note: "four", tags: ["c"], at: "2026-10-03 00:00:00+00" },
    ]);
    const { readFileSync } = await import("node:fs");
    const manifest = JSON.parse(readFileSync(join(dir, "lake/raw/app__orders/manifest.json"), "utf8")) as Manifest;
    expect(manifest.columns?.map((c) => `${c.name}:${c.type}`)).toEqual([
      "id:int64",
      "amount:decimal(12,2)",
      "note:text",
      "tags:list<text>",
      "at:timestamptz",
    ]);
    expect(manifest.runLog.last).toBe(2);
    expect((await ok(["plan"], dir)).stdout).toContain("cursor at from 2026-10-03 00:00:00.000000+00 (destination maximum)");
  });
});
