import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { sqlload, tempDir } from "./cli.js";
import { TestProject } from "./project.js";

// SPEC §4: sqlload does not override a collation set on a target column, but plan warns about it.
async function exec(file: string, sql: string): Promise<void> {
  const instance = await DuckDBInstance.create(file);
  try {
    const connection = await instance.connect();
    await connection.run(sql);
    connection.closeSync();
  } finally {
    instance.closeSync();
  }
}

/** A text-cursor table appending into a DuckDB target table created by hand with `createSql`. */
async function textCursorProject(createSql: string): Promise<TestProject> {
  const p = new TestProject(
    { t: { columns: { k: "text", v: "integer" } } },
    `[sources.src.tables.t]\ncursor_column = "k"\nwrite_strategy = "append"\n`,
  );
  p.rows("t", [{ k: "a9", v: 1 }]);
  await exec(join(p.dir, "w.duckdb"), createSql);
  return p;
}

describe("a DuckDB target column that sets a collation", () => {
  it("plan and load warn, naming the column, its collation and the consequence", async () => {
    const p = await textCursorProject(
      "create schema raw; create table raw.src__t (k varchar collate nocase, v integer); insert into raw.src__t values ('B1', 1), ('Z', 2), ('a9', 3);",
    );
    const plan = await p.ok("plan");
    expect(plan.stdout).toContain("cursor k after 'Z' (destination maximum)");
    expect(plan.stdout).toContain(
      "warning target column raw.src__t.k sets collation nocase: sqlload does not override it, so the destination maximum of the cursor is taken in that collation's order, not by code point",
    );
    const json = JSON.parse((await p.ok("plan", "--json")).stdout);
    expect(json.tables[0].warnings).toHaveLength(1);
    const load = await p.ok("load", "--no-progress");
    expect(load.stderr).toContain("warning raw.src__t: target column raw.src__t.k sets collation nocase");
  });

  it("says nothing for a column without one", async () => {
    const p = await textCursorProject(
      `create schema raw; create table raw.src__t ("k" varchar, v integer, note varchar collate nocase); insert into raw.src__t values ('B1', 1, 'x');`,
    );
    const plan = await p.ok("plan");
    expect(plan.stdout).not.toContain("warning");
  });
});

describe("a DuckDB source column that sets a collation", () => {
  it("plan warns, naming the source column, its collation and the consequence", async () => {
    const dir = tempDir("sqlload-collation-");
    await exec(
      join(dir, "app.duckdb"),
      "create table orders (k varchar collate nocase, v integer); insert into orders values ('B1', 1), ('a9', 2);",
    );
    writeFileSync(
      join(dir, "sqlload.toml"),
      `[target]\npath = "w.duckdb"\n\n[sources.app]\nconnector = "duckdb"\npath = "app.duckdb"\n\n[sources.app.tables."main.orders"]\ncursor_column = "k"\n`,
    );
    const plan = await sqlload(["plan"], { cwd: dir });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      "warning source column app.main.orders.k sets collation nocase: sqlload does not override it, so the source compares the cursor range in that collation's order",
    );
  });
});
