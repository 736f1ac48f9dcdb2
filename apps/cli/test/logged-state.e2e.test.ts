import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { queryDuckDB, sqlload, tempDir } from "./cli.js";

// SPEC §10–§11: logged state, checkpoints and the run log, through the built CLI into DuckDB.
// The "API" serves pages from data/pages.json; data/fail_at makes it throw before serving that page.
const MODULE = `import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkpoint, source, type Context } from "sqlload";

const api = source("api");
const read = (name: string) => JSON.parse(readFileSync(join(process.cwd(), "data", name), "utf8"));
const failAt = () => (existsSync(join(process.cwd(), "data", "fail_at")) ? Number(readFileSync(join(process.cwd(), "data", "fail_at"), "utf8")) : -1);

/** Pages with checkpoints: ctx.state is the next page to read. */
export const events = api.table(
  { writeStrategy: "append", state: "logged", columns: { id: "bigint not null", page: "integer" } },
  async function* events(ctx: Context<number>) {
    const pages: { id: number }[][] = read("pages.json");
    for (let p = ctx.state ?? 0; p < pages.length; p++) {
      if (p === failAt()) throw new Error("the API failed on page " + p);
      yield pages[p]!.map((row) => ({ ...row, page: p }));
      yield checkpoint(p + 1);
    }
  },
);

/** The same API without checkpoints: the token is assigned before the page's rows are yielded. */
export const plain = api.table(
  { writeStrategy: "append", state: "logged", columns: { id: "bigint not null", page: "integer" } },
  async function* plain(ctx: Context<number>) {
    const pages: { id: number }[][] = read("pages.json");
    let p = ctx.state ?? 0;
    while (p < pages.length) {
      if (p === failAt()) throw new Error("the API failed on page " + p);
      const page = pages[p]!;
      ctx.state = p + 1;
      for (const row of page) yield { ...row, page: p };
      p++;
    }
  },
);

/** A logged table that also has a cursor. */
export const stamped = api.table(
  { writeStrategy: "append", state: "logged", cursorColumn: "id", columns: { id: "bigint not null", page: "integer" } },
  async function* stamped(ctx: Context<number>) {
    const pages: { id: number }[][] = read("pages.json");
    for (let p = ctx.state ?? 0; p < pages.length; p++) {
      yield pages[p]!.map((row) => ({ ...row, page: p }));
      yield checkpoint(p + 1);
    }
  },
);
`;

function project() {
  const dir = tempDir("sqlload-logged-");
  mkdirSync(join(dir, "data"));
  writeFileSync(join(dir, "api.ts"), MODULE);
  writeFileSync(
    join(dir, "sqlload.toml"),
    `[target]\npath = "w.duckdb"\n\n[sources.api]\nconnector = "typescript"\nmodule = "api.ts"\n`,
  );
  // Pages of 3,000 rows, larger than nothing and smaller than a batch: 4 pages.
  const pages = (n: number, from = 0) =>
    Array.from({ length: n }, (_, p) => Array.from({ length: 3000 }, (_, i) => ({ id: from + p * 3000 + i + 1 })));
  const setPages = (n: number, from = 0) => writeFileSync(join(dir, "data", "pages.json"), JSON.stringify(pages(n, from)));
  const failAt = (page: number | undefined) =>
    page === undefined
      ? rmSync(join(dir, "data", "fail_at"), { force: true })
      : writeFileSync(join(dir, "data", "fail_at"), String(page));
  const run = (...args: string[]) => sqlload(args, { cwd: dir });
  const count = async (table: string) =>
    (
      await queryDuckDB(join(dir, "w.duckdb"), `select count(*)::int as n, count(distinct id)::int as d from raw.api__${table}`)
    )[0] as { n: number; d: number };
  const sql = (q: string) => queryDuckDB(join(dir, "w.duckdb"), q);
  return { dir, setPages, failAt, run, count, sql };
}

describe("logged state with checkpoints", () => {
  it("resumes from the last committed checkpoint after a failure, loading no row twice", async () => {
    const p = project();
    p.setPages(4);
    p.failAt(2);
    const failed = await p.run("load", "api__events");
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("the API failed on page 2");
    expect(await p.count("events")).toEqual({ n: 6000, d: 6000 });
    p.failAt(undefined);
    await p.run("load", "api__events");
    expect(await p.count("events")).toEqual({ n: 12000, d: 12000 });
    const show = await p.run("logged-state", "show", "api__events");
    expect(show.stdout).toContain("state 4 (set by run");
    // Nothing new: ctx.state is 4, the function reads nothing.
    const again = await p.run("load", "api__events");
    expect(again.stdout).toContain("loaded raw.api__events 0 rows");
    expect(await p.count("events")).toEqual({ n: 12000, d: 12000 });
  });

  it("--reload starts a logged table over with ctx.state undefined", async () => {
    const p = project();
    p.setPages(2);
    await p.run("load", "api__events");
    const reload = await p.run("load", "api__events", "--reload");
    expect(reload.code, reload.stderr).toBe(0);
    expect(await p.count("events")).toEqual({ n: 6000, d: 6000 });
  });
});

describe("logged state without checkpoints", () => {
  it("records the value ctx.state had one assignment before, so a failure loses nothing", async () => {
    const p = project();
    p.setPages(5);
    p.failAt(4);
    const failed = await p.run("load", "api__plain");
    expect(failed.code).toBe(1);
    p.failAt(undefined);
    await p.run("load", "api__plain");
    const { n, d } = await p.count("plain");
    // Nothing lost; under append, about two pages may load again.
    expect(d).toBe(15000);
    expect(n - d).toBeLessThanOrEqual(6000);
    const again = await p.run("load", "api__plain");
    expect(again.stdout).toContain("loaded raw.api__plain 0 rows");
  });
});

describe("logged-state commands", () => {
  it("reset --to / --clear need --yes, append records, and never delete", async () => {
    const p = project();
    p.setPages(3);
    await p.run("load", "api__events");
    const dry = await p.run("logged-state", "reset", "api__events", "--to", "1");
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain("would reset raw.api__events: state 3 → 1");
    expect((await p.run("logged-state", "show", "api__events")).stdout).toContain("state 3");
    const reset = await p.run("logged-state", "reset", "api__events", "--to", "1", "--yes");
    expect(reset.code, reset.stderr).toBe(0);
    await p.run("load", "api__events");
    // Pages 1 and 2 load again (append): 3 pages + 2.
    expect((await p.count("events")).n).toBe(15000);
    await p.run("logged-state", "reset", "api__events", "--clear", "--yes");
    const show = await p.run("logged-state", "show", "api__events");
    expect(show.stdout).toContain("state none (set by reset");
    expect(show.stdout).toMatch(/#\d+ \S+ reset run .* state 1/);
    const records = await p.sql("select count(*)::int as n from raw._sqlload_runs");
    expect(records[0]!.n).toBeGreaterThanOrEqual(6);
  });

  it("an unreadable record blocks only its table; show lists it; reset starts after it", async () => {
    const p = project();
    p.setPages(1);
    await p.run("load");
    await p.sql(
      "insert into raw._sqlload_runs select max(seq) + 1, 'bad-run', 'raw.api__events', 'api__events', '2026-11-29T00:00:00Z', 1, '{not json' from raw._sqlload_runs",
    );
    p.setPages(2);
    const load = await p.run("load");
    expect(load.code).toBe(1);
    expect(load.stderr).toContain("failed raw.api__events: SL500");
    expect(load.stdout).toContain("loaded raw.api__plain");
    const show = await p.run("logged-state", "show", "api__events");
    expect(show.stdout).toContain("unreadable (run bad-run");
    await p.run("logged-state", "reset", "api__events", "--to", "1", "--yes");
    const after = await p.run("load", "api__events");
    expect(after.code, after.stderr).toBe(0);
    expect(await p.count("events")).toEqual({ n: 6000, d: 6000 });
  });

  it("with a cursor: when log and data disagree the data wins, visibly; verify and reconcile", async () => {
    const p = project();
    p.setPages(2);
    await p.run("load", "api__stamped");
    await p.sql("delete from raw.api__stamped where id > 3000");
    const verify = await p.run("logged-state", "verify", "api__stamped");
    expect(verify.code).toBe(1);
    expect(verify.stdout).toContain("differs raw.api__stamped: logged cursor 6000, data 3000");
    const dry = await p.run("logged-state", "reconcile", "api__stamped");
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain("would reconcile");
    const load = await p.run("load", "api__stamped");
    expect(load.stderr).toContain("reconciled raw.api__stamped: logged cursor 6000 differs from the data's maximum 3000");
    // The data wins: state dropped, the read continues after the data's maximum, and nothing is doubled.
    expect(await p.count("stamped")).toEqual({ n: 6000, d: 6000 });
    expect((await p.run("logged-state", "verify", "api__stamped")).code).toBe(0);
  });

  it("deleting the log is safe: the next run reads as a stateless one would", async () => {
    const p = project();
    p.setPages(2);
    await p.run("load", "api__stamped");
    await p.sql("drop table raw._sqlload_runs");
    const load = await p.run("load", "api__stamped");
    expect(load.code, load.stderr).toBe(0);
    expect(await p.count("stamped")).toEqual({ n: 6000, d: 6000 });
  });
});
