import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { duckdbAndPostgres } from "./targets.js";

// Pacing (SPEC §13): rate_limit within a run, ctx.pace() for TypeScript tables, --pause between
// passes, and the rate_limited event, through the built CLI into DuckDB and Postgres.
const targets = duckdbAndPostgres();

/** A module whose `calls` table announces 5 requests with ctx.pace(), logging when each went. */
const PACED_MODULE = `import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { source } from "sqlload";

const src = source("src");

export const calls = src.table({ name: "calls", columns: { id: "bigint not null" } }, async function* (ctx) {
  for (let id = 1; id <= 5; id++) {
    await ctx.pace();
    appendFileSync(join(process.cwd(), "requests.log"), Date.now() + "\\n");
    yield { id };
  }
});
`;

const events = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe.each(targets)("pacing into $name", (target) => {
  it("holds a windowed table to rows_per_second across its windows, and reports the waits", async () => {
    const p = await target.project(
      { t: { columns: { id: "bigint not null" } } },
      `[sources.src.tables.t]\ncursor_column = "id"\ncursor_start = "0"\ncursor_end = "12"\nbatch_size = 4\nrate_limit = { rows_per_second = 8 }\n`,
    );
    p.rows(
      "t",
      Array.from({ length: 12 }, (_, id) => ({ id })),
    );
    const started = Date.now();
    const load = await p.ok("load", "--log-format", "json");
    const seconds = (Date.now() - started) / 1000;
    const limited = events(load.stdout).filter((e) => e.event === "rate_limited");
    // 12 rows at 8 rows/s: the second and third windows wait for the rows before them (about 1 s in all).
    expect(limited.length).toBeGreaterThanOrEqual(2);
    expect(limited[0]).toMatchObject({ table: "raw.src__t", limit: "rows_per_second", perSecond: 8 });
    const waited = limited.reduce((sum, e) => sum + (e.waitSeconds as number), 0);
    expect(waited).toBeGreaterThan(0.8);
    expect(seconds).toBeGreaterThan(1);
    expect(await target.query(p, "select count(*)::int as n from raw.src__t")).toEqual([{ n: 12 }]);
  });

  it("spaces a TypeScript table's requests by requests_per_second, from the source's rate_limit", async () => {
    const p = await target.project({ t: { columns: { id: "bigint not null" } } }, "");
    writeFileSync(join(p.dir, "src.ts"), PACED_MODULE);
    const toml = join(p.dir, "sqlload.toml");
    writeFileSync(
      toml,
      readFileSync(toml, "utf8").replace('module = "src.ts"', 'module = "src.ts"\nrate_limit = { requests_per_second = 5 }'),
    );
    const load = await p.ok("load", "src__calls", "--log-format", "json");
    const times = readFileSync(join(p.dir, "requests.log"), "utf8").trim().split("\n").map(Number);
    expect(times).toHaveLength(5);
    // 5 requests at 5/s: each at least ~200 ms after the one before (timers may fire a little early).
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(180);
    const limited = events(load.stdout).filter((e) => e.event === "rate_limited");
    expect(limited.map((e) => e.limit)).toEqual(Array(4).fill("requests_per_second"));
    expect(await target.query(p, "select count(*)::int as n from raw.src__calls")).toEqual([{ n: 5 }]);
  });

  it("pauses between --until-caught-up passes, and refuses a malformed pause or rate_limit", async () => {
    const p = await target.project(
      { t: { columns: { id: "bigint not null" } } },
      `[sources.src.tables.t]\ncursor_column = "id"\ncursor_start = "0"\ncursor_end = "6"\nbatch_size = 2\nmax_windows_per_run = 1\n`,
    );
    p.rows(
      "t",
      Array.from({ length: 6 }, (_, id) => ({ id })),
    );
    const started = Date.now();
    const load = await p.ok("load", "--until-caught-up", "--pause", "1s");
    expect(load.stdout.match(/pausing 1s before pass \d/g)).toEqual(["pausing 1s before pass 2", "pausing 1s before pass 3"]);
    expect(Date.now() - started).toBeGreaterThan(2000);
    expect(await target.query(p, "select count(*)::int as n from raw.src__t")).toEqual([{ n: 6 }]);
    const bad = await p.run("load", "--until-caught-up", "--pause", "soon");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("SL104");
    writeFileSync(
      join(p.dir, "sqlload.toml"),
      `${readFileSync(join(p.dir, "sqlload.toml"), "utf8")}rate_limit = { rows_per_second = -1 }\n`,
    );
    const check = await p.run("check");
    expect(check.code).toBe(2);
    expect(check.stderr).toContain("SL103");
    expect(check.stderr).toContain("rate_limit.rows_per_second");
  });
});
