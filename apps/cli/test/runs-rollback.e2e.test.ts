import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TestProject } from "./project.js";
import { duckdbAndPostgres } from "./targets.js";

// SPEC §13: `sqlload runs` and `sqlload rollback`, through the built CLI, into DuckDB and Postgres.
const targets = duckdbAndPostgres();

const ids = { id: "bigint not null", v: "text" };

/** The runs of the one selected table, newest first. */
async function runsOf(p: TestProject, table: string) {
  const out = JSON.parse((await p.ok("runs", table, "--json")).stdout) as {
    tables: {
      table: string;
      runs: { runId: string; rows: number; windows: number; status: string; before: unknown; after: unknown }[];
    }[];
  };
  return out.tables[0]!.runs;
}

describe.each(targets)("runs and rollback into $name", (target) => {
  it("lists runs newest first, rolls a plain cursor table back to a run, and re-loads from its position", async () => {
    const p = await target.project(
      { t: { columns: ids } },
      `[sources.src.tables.t]\ncursor_column = "id"\nwrite_strategy = "delete_insert"\n`,
    );
    p.rows(
      "t",
      [1, 2, 3].map((id) => ({ id, v: "a" })),
    );
    await p.ok("load");
    p.rows(
      "t",
      [1, 2, 3, 4, 5].map((id) => ({ id, v: "a" })),
    );
    await p.ok("load");
    const runs = await runsOf(p, "src__t");
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ rows: 3, status: "committed", before: { cursor: { kind: "integer", value: "3" } } });
    expect(runs[0]!.after).toMatchObject({ cursor: { kind: "integer", value: "5" } });
    expect(runs[1]).toMatchObject({ rows: 3, before: null, after: { cursor: { kind: "integer", value: "3" } } });
    const text = (await p.ok("runs", "src__t")).stdout;
    expect(text).toContain(`  ${runs[0]!.runId}  `);
    expect(text).toMatch(/3 rows {2}0 windows {2}3 → 5 {2}committed/);
    expect(text.indexOf(runs[0]!.runId)).toBeLessThan(text.indexOf(runs[1]!.runId));

    const first = runs[1]!.runId;
    const dry = await p.run("rollback", "src__t", "--to-run", first);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain(`would roll back raw.src__t to run ${first}`);
    expect(dry.stdout).toContain(`cursor id from 3 (rollback pending: continues from run ${first}: rollback to run ${first})`);
    expect(dry.stdout).toContain("delete_insert deletes the target rows whose id lies in that range");
    expect(dry.stdout).toContain("nothing changed: pass --yes to do it");
    expect((await p.ok("plan")).stdout).toContain("cursor id from 5 (destination maximum)");

    await p.ok("rollback", "src__t", "--to-run", first, "--reason", "upstream fixed rows 4 and 5", "--yes");
    expect((await p.ok("plan")).stdout).toContain(
      `cursor id from 3 (rollback pending: continues from run ${first}: upstream fixed rows 4 and 5)`,
    );
    expect((await runsOf(p, "src__t"))[0]).toMatchObject({ status: `rollback to run ${first}`, rows: 0 });

    p.rows(
      "t",
      [1, 2, 3, 4, 5, 6].map((id) => ({ id, v: id >= 4 ? "fixed" : "a" })),
    );
    p.calls();
    await p.ok("load");
    expect(p.calls()).toEqual([{ table: "t", from: "3", to: null, window: null }]);
    const rows = await target.query(p, "select id::int as id, v from raw.src__t order by id");
    expect(rows).toEqual([1, 2, 3, 4, 5, 6].map((id) => ({ id, v: id >= 4 ? "fixed" : "a" })));
    // Followed once: the next run continues from the data again.
    expect((await p.ok("plan")).stdout).toContain("cursor id from 6 (destination maximum)");
  });

  it("drops a rollback when the table is changed by hand before the next run: the data wins", async () => {
    const p = await target.project({ t: { columns: ids } }, `[sources.src.tables.t]\ncursor_column = "id"\n`);
    p.rows(
      "t",
      [1, 2].map((id) => ({ id, v: "a" })),
    );
    await p.ok("load");
    p.rows(
      "t",
      [1, 2, 3, 4].map((id) => ({ id, v: "a" })),
    );
    await p.ok("load");
    const first = (await runsOf(p, "src__t"))[1]!.runId;
    await p.ok("rollback", "src__t", "--to-run", first, "--yes");
    expect((await p.ok("plan")).stdout).toContain("cursor id from 2 (rollback pending");
    await target.query(p, "delete from raw.src__t where id = 4");
    expect((await p.ok("plan")).stdout).toContain("cursor id from 3 (destination maximum)");
  });

  it("re-loads a windowed table window by window from the run's window end, across bounded runs", async () => {
    const p = await target.project(
      { t: { columns: { id: "bigint not null" } } },
      `[sources.src.tables.t]\ncursor_column = "id"\ncursor_start = "0"\ncursor_end = "10"\nbatch_size = 2\n`,
    );
    p.rows(
      "t",
      Array.from({ length: 10 }, (_, id) => ({ id })),
    );
    await p.ok("load", "--max-windows", "2");
    await p.ok("load");
    const runs = await runsOf(p, "src__t");
    expect(runs.map((r) => r.windows)).toEqual([3, 2]);
    expect(runs[1]!.after).toMatchObject({ windowEnd: { kind: "integer", value: "4" } });
    await p.ok("rollback", "src__t", "--to-run", runs[1]!.runId, "--yes");
    expect((await p.ok("plan")).stdout).toContain("batch 3 windows of 2, one commit each");
    p.calls();
    await p.ok("load", "--max-windows", "1");
    expect(p.calls()).toEqual([{ table: "t", from: "4", to: "6", window: { index: 0, count: 3 } }]);
    // The re-load is still pending after one bounded run, and carries on from the window it reached.
    expect((await p.ok("plan")).stdout).toContain("cursor id from 6 (rollback pending");
    await p.ok("load");
    expect(p.calls().map((c) => c.from)).toEqual(["6", "8"]);
    expect((await p.ok("plan")).stdout).toContain("batch 0 windows: caught up");
    const rows = await target.query(p, "select count(*)::int as n, count(distinct id)::int as d from raw.src__t");
    expect(rows).toEqual([{ n: 10, d: 10 }]);
  });

  it("refuses a rollback of an append table unless duplicates are allowed, and an unknown run", async () => {
    const p = await target.project(
      { t: { columns: ids } },
      `[sources.src.tables.t]\ncursor_column = "id"\nwrite_strategy = "append"\n`,
    );
    p.rows(
      "t",
      [1, 2].map((id) => ({ id, v: "a" })),
    );
    await p.ok("load");
    p.rows(
      "t",
      [1, 2, 3].map((id) => ({ id, v: "a" })),
    );
    await p.ok("load");
    const first = (await runsOf(p, "src__t"))[1]!.runId;
    const refused = await p.run("rollback", "src__t", "--to-run", first, "--yes");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("SL504");
    expect(refused.stderr).toContain("--allow-duplicates");
    const unknown = await p.run("rollback", "src__t", "--to-run", "nope", "--yes");
    expect(unknown.stderr).toContain("SL503");
    const dry = await p.run("rollback", "src__t", "--to-run", first, "--allow-duplicates");
    expect(dry.stdout).toContain("cursor id after 2 (rollback pending");
    expect(dry.stdout).toContain("append inserts the rows read again");
    await p.ok("rollback", "src__t", "--to-run", first, "--allow-duplicates", "--yes");
    await p.ok("load");
    const rows = await target.query(p, "select id::int as id from raw.src__t order by id");
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3, 3]);
  });
});

/** A logged table: ctx.state is the next page to read; each page's rows are checkpointed with it. */
const LOGGED_MODULE = `import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkpoint, source, type Context } from "sqlload";

const src = source("src");

export const pages = src.table(
  { name: "pages", writeStrategy: "merge", primaryKey: ["id"], state: "logged", columns: { id: "bigint not null", v: "text" } },
  async function* (ctx: Context<number>) {
    appendFileSync(join(process.cwd(), "starts.log"), JSON.stringify(ctx.state ?? null) + "\\n");
    const all: { id: number; v: string }[][] = JSON.parse(readFileSync(join(process.cwd(), "data", "pages.json"), "utf8"));
    for (let p = ctx.state ?? 0; p < all.length; p++) {
      yield all[p]!;
      yield checkpoint(p + 1);
    }
  },
);
`;

describe.each(targets)("rollback of a logged table into $name", (target) => {
  it("sets the state the run left, so the next run re-reads from there", async () => {
    const p = await target.project({ t: { columns: ids } }, "");
    writeFileSync(join(p.dir, "src.ts"), LOGGED_MODULE);
    const pages = (v: string) => [[{ id: 1, v }], [{ id: 2, v }], [{ id: 3, v }]];
    writeFileSync(join(p.dir, "data", "pages.json"), JSON.stringify(pages("a").slice(0, 2)));
    await p.ok("load", "src__pages");
    writeFileSync(join(p.dir, "data", "pages.json"), JSON.stringify(pages("a")));
    await p.ok("load", "src__pages");
    const runs = await runsOf(p, "src__pages");
    expect(runs[0]!.after).toMatchObject({ state: 3 });
    expect(runs[1]!.after).toMatchObject({ state: 2 });
    const dry = await p.run("rollback", "src__pages", "--to-run", runs[1]!.runId);
    expect(dry.stdout).toContain("state 2 (ctx.state the table function starts from)");
    expect(dry.stdout).toContain("merge upserts the rows read on id");
    await p.ok("rollback", "src__pages", "--to-run", runs[1]!.runId, "--yes");
    // Upstream fixed page 2 (the third page): the re-read replaces it, nothing is duplicated.
    writeFileSync(join(p.dir, "data", "pages.json"), JSON.stringify([...pages("a").slice(0, 2), [{ id: 3, v: "fixed" }]]));
    await p.ok("load", "src__pages");
    expect(readFileSync(join(p.dir, "starts.log"), "utf8").trim().split("\n")).toEqual(["null", "2", "2"]);
    const rows = await target.query(p, "select id::int as id, v from raw.src__pages order by id");
    expect(rows).toEqual([
      { id: 1, v: "a" },
      { id: 2, v: "a" },
      { id: 3, v: "fixed" },
    ]);
  });
});
