import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { sqlload, tempDir } from "./cli.js";
import { TestProject } from "./project.js";

// Issue 13 items 1-3: settings are exact and checked before anything connects (SPEC §2, §4, §9).
const ints = { id: "bigint", v: "text" };

describe("integers of 2^53 or more in sqlload.toml", () => {
  it("stay exact in cursor_start, cursor_end and batch_size, and never read as a missing connector", async () => {
    const p = new TestProject(
      { t: { columns: ints } },
      `[sources.src.tables.t]\ncursor_column = "id"\ncursor_start = 9007199254740995\ncursor_end = 9007199254741999\nbatch_size = 9007199254740993\n`,
    );
    p.rows("t", [
      { id: 9007199254740994n, v: "before" },
      { id: 9007199254740995n, v: "first" },
      { id: 9007199254740997n, v: "second" },
    ]);
    expect((await p.ok("check")).stdout).toContain("ok:");
    const plan = await p.ok("plan");
    expect(plan.stdout).toContain("cursor id first run, from cursor_start 9007199254740995, below 9007199254741999 (cursor_end)");
    expect(plan.stdout).toContain("batch 1 window of 9007199254740993");
    await p.ok("load");
    const rows = await p.query("select id::varchar as id from raw.src__t order by id");
    expect(rows.map((r) => r.id)).toEqual(["9007199254740995", "9007199254740997"]);
  });

  it("stay exact in --start-cursor", async () => {
    const p = new TestProject({ t: { columns: ints } }, `[sources.src.tables.t]\ncursor_column = "id"\n`);
    p.rows("t", [{ id: 9007199254740994n, v: "a" }]);
    const plan = await p.ok("plan", "--start-cursor", "9007199254740995", "--end-cursor", "9007199254740999");
    expect(plan.stdout).toContain("cursor id from 9007199254740995 (--start-cursor), below 9007199254740999 (--end-cursor)");
  });
});

describe("cursor-kind rules of a declared integer cursor", () => {
  const cases: [string, string, string][] = [
    ['cursor_end = "now"', "SL207", "cursor_end"],
    ['batch_size = "7d"', "SL115", "batch_size"],
    ['lookback = "1h"', "SL205", "lookback"],
    ['cursor_start = "2026-10-01"', "SL113", "cursor_start"],
    ['cursor_end = "2026-10-01"', "SL113", "cursor_end"],
  ];
  for (const [setting, code, key] of cases) {
    it(`${setting}: check, plan and load exit 2 with ${code} at the setting's line, and create no target`, async () => {
      const p = new TestProject({ t: { columns: ints } }, `[sources.src.tables.t]\ncursor_column = "id"\n${setting}\n`);
      p.rows("t", [{ id: 1n, v: "a" }]);
      for (const command of ["check", "plan", "load"]) {
        const result = await p.run(command);
        expect(result.code, `${command}: ${result.stdout}${result.stderr}`).toBe(2);
        expect(result.stderr).toContain(`error ${code}`);
        expect(result.stderr).toContain(`sqlload.toml:11 sources.src.tables.t.${key}`);
      }
      expect(existsSync(join(p.dir, "w.duckdb"))).toBe(false);
    });
  }

  it("is reported as a config error, not a connection error, when the target cannot be reached", async () => {
    const p = new TestProject({ t: { columns: ints } }, `[sources.src.tables.t]\ncursor_column = "id"\ncursor_end = "now"\n`);
    const fs = await import("node:fs");
    const toml = fs.readFileSync(join(p.dir, "sqlload.toml"), "utf8");
    // A folder where the DuckDB file should be: opening the target would fail.
    fs.mkdirSync(join(p.dir, "w.duckdb"));
    fs.writeFileSync(join(p.dir, "sqlload.toml"), toml);
    for (const command of ["plan", "load"]) {
      const result = await p.run(command);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("error SL207");
    }
  });
});

describe("cursor-kind rules only the source's metadata can check", () => {
  it("plan and load report them as config errors (exit 2) before creating the target", async () => {
    const dir = tempDir("sqlload-kind-");
    const instance = await DuckDBInstance.create(join(dir, "app.duckdb"));
    const connection = await instance.connect();
    await connection.run("create table orders (id bigint, v varchar); insert into orders values (1, 'a')");
    connection.closeSync();
    instance.closeSync();
    writeFileSync(
      join(dir, "sqlload.toml"),
      `[target]\npath = "w.duckdb"\n\n[sources.app]\nconnector = "duckdb"\npath = "app.duckdb"\n\n[sources.app.tables."main.orders"]\ncursor_column = "id"\ncursor_end = "now"\n`,
    );
    expect((await sqlload(["check"], { cwd: dir })).code).toBe(0);
    for (const command of ["plan", "load"]) {
      const result = await sqlload([command], { cwd: dir });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain("error SL207");
      expect(result.stderr).toContain('sqlload.toml:10 sources.app.tables."main.orders".cursor_end');
    }
    expect(existsSync(join(dir, "w.duckdb"))).toBe(false);
  });
});

describe("flags are validated before any target opens", () => {
  it("load --start-cursor not-a-time exits 2 with SL113 and creates no DuckDB file", async () => {
    const p = new TestProject(
      { t: { columns: { id: "bigint", at_ts: "timestamp" } } },
      `[sources.src.tables.t]\ncursor_column = "at_ts"\n`,
    );
    p.rows("t", [{ id: 1, at_ts: "2026-10-01T00:00:00Z" }]);
    for (const command of ["plan", "load"]) {
      const result = await p.run(command, "--start-cursor", "not-a-time");
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('error SL113: --start-cursor "not-a-time" is not a valid timestamp cursor value');
    }
    const end = await p.run("load", "--end-cursor", "2026-13-45");
    expect(end.code).toBe(2);
    expect(end.stderr).toContain("SL113");
    expect(existsSync(join(p.dir, "w.duckdb"))).toBe(false);
  });

  it("refuses a range on tables of two cursor kinds before opening the target (SL204)", async () => {
    const p = new TestProject(
      { a: { columns: ints }, b: { columns: { id: "bigint", day: "date" } } },
      `[sources.src.tables.a]\ncursor_column = "id"\n\n[sources.src.tables.b]\ncursor_column = "day"\n`,
    );
    const result = await p.run("load", "--start-cursor", "1");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("SL204");
    expect(existsSync(join(p.dir, "w.duckdb"))).toBe(false);
  });
});

describe("a load whose checks fail", () => {
  it("exits at once with the error, though its Postgres target does not answer", async () => {
    // A server that takes the connection and never answers: opening the target would wait on it.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const p = new TestProject({ t: { columns: ints } }, `[sources.src.tables.t]\ncursor_column = "nope"\n`);
      p.rows("t", [{ id: 1n, v: "a" }]);
      const toml = join(p.dir, "sqlload.toml");
      writeFileSync(
        toml,
        readFileSync(toml, "utf8").replace(
          'connector = "duckdb"\npath = "w.duckdb"',
          `connector = "postgres"\nurl = "postgresql://postgres@127.0.0.1:${port}/warehouse"`,
        ),
      );
      const result = await p.run("load");
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain('cursor column "nope"');
    } finally {
      silent.close();
    }
  }, 60_000);
});
