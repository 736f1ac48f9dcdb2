import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { sqlload, tempDir } from "./cli.js";
import { postgresDatabases } from "./targets.js";

// The linguistic-order warning: a Postgres text cursor whose keys rise only under the column's
// collation, planned into a DuckDB and a Postgres target through the built CLI.
const database = postgresDatabases("lo");

async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function project(keys: readonly string[], collation: string, target: "duckdb" | "postgres") {
  const source = await database();
  await sql(source, `create table public.items (code text collate "${collation}" not null, n int)`);
  await sql(source, `insert into public.items values ${keys.map((k, i) => `('${k}', ${i})`).join(", ")}`);
  const targetToml =
    target === "duckdb" ? `[target]\npath = "w.duckdb"\n` : `[target]\nconnector = "postgres"\nurl = "${await database()}"\n`;
  const dir = tempDir("sqlload-lo-");
  writeFileSync(
    join(dir, "sqlload.toml"),
    `${targetToml}\n[sources.app]\nconnector = "postgres"\nurl = "${source}"\n\n[sources.app.tables."public.items"]\ncursor_column = "code"\n`,
  );
  return (...args: string[]) => sqlload(args, { cwd: dir });
}

describe.each(["duckdb", "postgres"] as const)("linguistic-order warning, into %s", (target) => {
  it("warns in plan, naming the column and suggesting keys that increase in either order", async () => {
    const run = await project(["apple1", "Banana2", "cherry3", "Date4"], "en-US-x-icu", target);
    const plan = await run("plan");
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(
      "note warning: the text cursor code rises in the source's collation but not in code point order",
    );
    expect(plan.stdout).toContain("'apple1' sorts before 'Banana2'");
    expect(plan.stdout).toContain("zero-padded numbers, ULIDs, ISO 8601 timestamps");
    const json = JSON.parse((await run("plan", "--json")).stdout) as { tables: { notes: string[] }[] };
    expect(json.tables[0]!.notes.some((n) => n.includes("text cursor code rises"))).toBe(true);
  });

  it("stays silent when the keys rise in both orders, or the column already sorts by code point", async () => {
    const padded = await project(["k0001", "k0002", "k0010"], "en-US-x-icu", target);
    expect((await padded("plan")).stdout).not.toContain("text cursor code rises");
    const binary = await project(["apple1", "Banana2", "cherry3", "Date4"], "C", target);
    expect((await binary("plan")).stdout).not.toContain("text cursor code rises");
  });
});
