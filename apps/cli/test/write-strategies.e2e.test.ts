import { describe, expect, it } from "vitest";
import { TestProject } from "./project.js";

// SPEC §3 and §5: what each write strategy does with a read, end to end through the built CLI into DuckDB.
const columns = { id: "bigint not null", v: "text", k: "integer" };
const table = (settings: string) => `[sources.src.tables.t]\ncursor_column = "k"\n${settings}\n`;
const ids = async (p: TestProject) =>
  (await p.query("select id::int as id, v, k::int as k from raw.src__t order by id, v")).map((r) => `${r.id}:${r.v}:${r.k}`);

describe("write strategies", () => {
  it("append reads strictly after the destination maximum and inserts", async () => {
    const p = new TestProject({ t: { columns } }, table('write_strategy = "append"'));
    p.rows("t", [
      { id: 1, v: "a", k: 1 },
      { id: 2, v: "b", k: 2 },
    ]);
    await p.ok("load");
    p.rows("t", [
      { id: 1, v: "a", k: 1 },
      { id: 2, v: "b", k: 2 },
      { id: 3, v: "c", k: 3 },
    ]);
    const second = await p.ok("load");
    expect(second.stdout).toContain("loaded raw.src__t 1 rows");
    expect(second.stdout).toContain("2 rows outside the read range dropped");
    expect(await ids(p)).toEqual(["1:a:1", "2:b:2", "3:c:3"]);
    expect((await p.ok("plan")).stdout).toContain("cursor k after 3 (destination maximum)");
  });

  it("append_cursor_inclusive reads from the maximum itself, inserting its rows again", async () => {
    const p = new TestProject({ t: { columns } }, table('write_strategy = "append"\nappend_cursor_inclusive = true'));
    p.rows("t", [
      { id: 1, v: "a", k: 1 },
      { id: 2, v: "b", k: 2 },
    ]);
    await p.ok("load");
    await p.ok("load");
    expect(await ids(p)).toEqual(["1:a:1", "2:b:2", "2:b:2"]);
  });

  it("delete_insert replaces the rows at and after the maximum, in one commit", async () => {
    const p = new TestProject({ t: { columns } }, table('write_strategy = "delete_insert"'));
    p.rows("t", [
      { id: 1, v: "a", k: 1 },
      { id: 2, v: "b", k: 2 },
      { id: 3, v: "c", k: 2 },
    ]);
    await p.ok("load");
    // id 3 left the maximum's group in the source, id 2 changed, id 4 is new; id 1 changed before the maximum.
    p.rows("t", [
      { id: 1, v: "A", k: 1 },
      { id: 2, v: "B", k: 2 },
      { id: 4, v: "d", k: 5 },
    ]);
    await p.ok("load");
    expect(await ids(p)).toEqual(["1:a:1", "2:B:2", "4:d:5"]);
  });

  it("merge upserts on primary_key, and refuses a key twice in one read (SL301)", async () => {
    const p = new TestProject({ t: { columns } }, table('write_strategy = "merge"\nprimary_key = ["id"]'));
    p.rows("t", [
      { id: 1, v: "a", k: 1 },
      { id: 2, v: "b", k: 2 },
    ]);
    await p.ok("load");
    p.rows("t", [
      { id: 1, v: "A", k: 3 },
      { id: 3, v: "c", k: 3 },
    ]);
    await p.ok("load");
    expect(await ids(p)).toEqual(["1:A:3", "2:b:2", "3:c:3"]);
    p.rows("t", [
      { id: 5, v: "x", k: 4 },
      { id: 5, v: "y", k: 4 },
    ]);
    const dup = await p.run("load");
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain("SL301");
    expect(dup.stderr).toContain("primary key (id = 5)");
    expect(await ids(p)).toEqual(["1:A:3", "2:b:2", "3:c:3"]);
  });

  it("replace reads everything and swaps the new table in; plan says batch_size and lookback are ignored", async () => {
    const p = new TestProject(
      { t: { columns: { ...columns, k: "date" } } },
      table('write_strategy = "replace"\nbatch_size = "1d"\nlookback = "1d"'),
    );
    p.rows("t", [
      { id: 1, v: "a", k: "2026-01-01" },
      { id: 2, v: "b", k: "2026-01-02" },
    ]);
    await p.ok("load");
    p.rows("t", [{ id: 3, v: "c", k: "2025-01-01" }]);
    const plan = await p.ok("plan");
    expect(plan.stdout).toContain("note replace reads everything on every run: batch_size and lookback are ignored");
    expect(plan.stdout).toContain("batch one commit at the end: a new table is built and swapped in");
    await p.ok("load");
    expect(await p.query("select id::int as id from raw.src__t")).toEqual([{ id: 3 }]);
  });

  it("--reload starts a table over, built anew and swapped in", async () => {
    const p = new TestProject({ t: { columns } }, table('write_strategy = "append"'));
    p.rows("t", [{ id: 1, v: "a", k: 1 }]);
    await p.ok("load");
    p.rows("t", [
      { id: 1, v: "A", k: 1 },
      { id: 2, v: "b", k: 2 },
    ]);
    expect((await p.ok("plan", "--reload")).stdout).toContain("strategy append (--reload: rebuilt and swapped in)");
    await p.ok("load", "--reload");
    expect(await ids(p)).toEqual(["1:A:1", "2:b:2"]);
  });

  it("defaults to delete_insert with a cursor and replace without", async () => {
    const p = new TestProject({ t: { columns }, u: { columns } }, table(""));
    p.rows("t", [{ id: 1, v: "a", k: 1 }]).rows("u", [{ id: 1, v: "a", k: 1 }]);
    const plan = (await p.ok("plan")).stdout;
    expect(plan).toMatch(/raw\.src__t ← src\.t\n├── strategy delete_insert/);
    expect(plan).toMatch(/raw\.src__u ← src\.u\n├── strategy replace/);
  });
});

describe("tables load independently", () => {
  it("a failing table does not stop the others (--concurrency 2); the exit code says one failed; --fail-fast starts no more", async () => {
    const columns2 = { id: "bigint not null", k: "integer" };
    const p = new TestProject(
      { a: { columns: columns2 }, b: { columns: columns2 }, c: { columns: columns2 } },
      `[sources.src.tables.b]\nwrite_strategy = "merge"\nprimary_key = ["id"]\n`,
    );
    p.rows("a", [{ id: 1, k: 1 }]).rows("b", [
      { id: 1, k: 1 },
      { id: 1, k: 2 },
    ]);
    p.rows("c", [{ id: 3, k: 3 }]);
    const run = await p.run("load", "--concurrency", "2");
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("loaded raw.src__a 1 rows");
    expect(run.stdout).toContain("loaded raw.src__c 1 rows");
    expect(run.stderr).toContain("failed raw.src__b: SL301");
    const failFast = await p.run("load", "src__b", "src__c", "--fail-fast");
    expect(failFast.code).toBe(1);
    expect(failFast.stdout).not.toContain("loaded raw.src__c");
  });
});
