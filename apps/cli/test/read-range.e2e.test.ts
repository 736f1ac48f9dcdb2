import { describe, expect, it } from "vitest";
import { TestProject } from "./project.js";

// SPEC §3 (cursor settings) and §5 (where a read starts), through the built CLI into DuckDB.
const ts = { id: "bigint not null", at_ts: "timestamptz" };
const dates = { id: "bigint not null", day: "date" };
const idsOf = async (p: TestProject, table = "t") =>
  (await p.query(`select id::int as id from raw.src__${table} order by id`)).map((r) => r.id);

function isoDaysAgo(days: number, hours = 0): string {
  const d = new Date(Date.now() - days * 86_400_000 - hours * 3_600_000);
  return d.toISOString();
}
function dayOffset(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

describe("where a read starts, in order (SPEC §5)", () => {
  it("1. --start-cursor/--end-cursor read [A, B) and replace exactly that range under delete_insert", async () => {
    const p = new TestProject({ t: { columns: dates } }, `[sources.src.tables.t]\ncursor_column = "day"\n`);
    p.rows("t", [
      { id: 1, day: "2026-10-01" },
      { id: 2, day: "2026-10-05" },
      { id: 3, day: "2026-10-08" },
    ]);
    await p.ok("load");
    // The source changed inside the range (id 2 gone, id 4 new) and outside it (id 5): only [10-01, 10-08) is replaced.
    p.rows("t", [
      { id: 1, day: "2026-10-01" },
      { id: 4, day: "2026-10-03" },
      { id: 3, day: "2026-10-08" },
      { id: 5, day: "2026-10-09" },
    ]);
    const plan = await p.ok("plan", "--start-cursor", "2026-10-01", "--end-cursor", "2026-10-08");
    expect(plan.stdout).toContain("cursor day from 2026-10-01 (--start-cursor), below 2026-10-08 (--end-cursor)");
    await p.ok("load", "--start-cursor", "2026-10-01", "--end-cursor", "2026-10-08");
    expect(await idsOf(p)).toEqual([1, 3, 4]);
    expect(p.calls().at(-1)).toMatchObject({ from: "2026-10-01", to: "2026-10-08" });
  });

  it("1. a date given for a timestamp cursor means its midnight UTC", async () => {
    const p = new TestProject({ t: { columns: ts } }, `[sources.src.tables.t]\ncursor_column = "at_ts"\n`);
    p.rows("t", [{ id: 1, at_ts: "2026-10-01T00:00:00Z" }]);
    const plan = await p.ok("plan", "--start-cursor", "2026-10-01", "--end-cursor", "2026-10-08T00:00:00+02:00");
    expect(plan.stdout).toContain(
      "cursor at_ts from 2026-10-01 00:00:00.000000+00 (--start-cursor), below 2026-10-07 22:00:00.000000+00 (--end-cursor)",
    );
  });

  it("1. refuses tables of different cursor kinds before reading (SL204, exit 2)", async () => {
    const p = new TestProject(
      { t: { columns: dates }, u: { columns: ts } },
      `[sources.src.tables.t]\ncursor_column = "day"\n[sources.src.tables.u]\ncursor_column = "at_ts"\n`,
    );
    p.rows("t", [{ id: 1, day: "2026-10-01" }]).rows("u", [{ id: 1, at_ts: "2026-10-01T00:00:00Z" }]);
    const result = await p.run("load", "--start-cursor", "2026-10-01");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("SL204");
    expect(p.calls()).toEqual([]);
  });

  it('2. lookback_from = "now" reads back from now on every run, the first too', async () => {
    const p = new TestProject(
      { t: { columns: ts } },
      `[sources.src.tables.t]\ncursor_column = "at_ts"\nlookback = "2d"\nlookback_from = "now"\n`,
    );
    p.rows("t", [
      { id: 1, at_ts: isoDaysAgo(5) },
      { id: 2, at_ts: isoDaysAgo(1) },
    ]);
    expect((await p.ok("plan")).stdout).toMatch(/cursor at_ts from \S+ \S+ \(now minus lookback\)/);
    await p.ok("load");
    expect(await idsOf(p)).toEqual([2]);
  });

  it("3. the destination maximum minus lookback re-reads late rows", async () => {
    const p = new TestProject({ t: { columns: ts } }, `[sources.src.tables.t]\ncursor_column = "at_ts"\nlookback = "1h"\n`);
    p.rows("t", [{ id: 1, at_ts: "2026-10-12T16:00:00Z" }]);
    await p.ok("load");
    // A late row 30 minutes before the maximum arrives: the lookback picks it up.
    p.rows("t", [
      { id: 1, at_ts: "2026-10-12T16:00:00Z" },
      { id: 2, at_ts: "2026-10-12T15:30:00Z" },
      { id: 3, at_ts: "2026-10-12T14:00:00Z" },
    ]);
    const plan = await p.ok("plan");
    expect(plan.stdout).toContain(
      "cursor at_ts from 2026-10-12 15:00:00.000000+00 (destination maximum 2026-10-12 16:00:00.000000+00 minus lookback)",
    );
    await p.ok("load");
    expect(await idsOf(p)).toEqual([1, 2]);
  });

  it("3. a date cursor's lookback moves back whole days, rounded up", async () => {
    const p = new TestProject({ t: { columns: dates } }, `[sources.src.tables.t]\ncursor_column = "day"\nlookback = "1h"\n`);
    p.rows("t", [{ id: 1, day: "2026-10-12" }]);
    await p.ok("load");
    expect((await p.ok("plan")).stdout).toContain("cursor day from 2026-10-11 (destination maximum 2026-10-12 minus lookback)");
  });

  it("4. cursor_start when the target is empty, then the destination maximum", async () => {
    const p = new TestProject(
      { t: { columns: dates } },
      `[sources.src.tables.t]\ncursor_column = "day"\ncursor_start = "2026-10-02"\n`,
    );
    p.rows("t", [
      { id: 1, day: "2026-10-01" },
      { id: 2, day: "2026-10-02" },
      { id: 3, day: "2026-10-03" },
    ]);
    expect((await p.ok("plan")).stdout).toContain("cursor day first run, from cursor_start 2026-10-02");
    await p.ok("load");
    expect(await idsOf(p)).toEqual([2, 3]);
    expect((await p.ok("plan")).stdout).toContain("cursor day from 2026-10-03 (destination maximum)");
  });

  it("5. otherwise everything, NULL cursors included; incremental runs never read NULLs; plan says so", async () => {
    const p = new TestProject({ t: { columns: dates } }, `[sources.src.tables.t]\ncursor_column = "day"\n`);
    p.rows("t", [
      { id: 1, day: "2026-10-01" },
      { id: 2, day: null },
    ]);
    const plan = await p.ok("plan");
    expect(plan.stdout).toContain("cursor day everything (first run, no cursor_start)");
    expect(plan.stdout).toContain("note rows whose day is NULL are read by a full read only");
    await p.ok("load");
    expect(await idsOf(p)).toEqual([1, 2]);
    p.rows("t", [
      { id: 1, day: "2026-10-01" },
      { id: 2, day: null },
      { id: 3, day: null },
      { id: 4, day: "2026-10-02" },
    ]);
    await p.ok("load");
    expect(await idsOf(p)).toEqual([1, 2, 4]);
  });

  it("a table changed by hand is followed: truncated, it reads from cursor_start again", async () => {
    const p = new TestProject(
      { t: { columns: dates } },
      `[sources.src.tables.t]\ncursor_column = "day"\ncursor_start = "2026-10-01"\n`,
    );
    p.rows("t", [{ id: 1, day: "2026-10-01" }]);
    await p.ok("load");
    await p.query("delete from raw.src__t");
    await p.ok("load");
    expect(await idsOf(p)).toEqual([1]);
  });
});

describe("cursor settings (SPEC §3)", () => {
  it("cursor_end stops reads for good", async () => {
    const p = new TestProject(
      { t: { columns: dates } },
      `[sources.src.tables.t]\ncursor_column = "day"\ncursor_end = "2026-10-03"\n`,
    );
    p.rows("t", [
      { id: 1, day: "2026-10-01" },
      { id: 2, day: "2026-10-03" },
    ]);
    expect((await p.ok("plan")).stdout).toContain("below 2026-10-03 (cursor_end)");
    await p.ok("load");
    expect(await idsOf(p)).toEqual([1]);
  });

  it("lookahead reads a date cursor up to and including today plus N days", async () => {
    const p = new TestProject({ t: { columns: dates } }, `[sources.src.tables.t]\ncursor_column = "day"\nlookahead = "1d"\n`);
    p.rows("t", [
      { id: 1, day: dayOffset(0) },
      { id: 2, day: dayOffset(1) },
      { id: 3, day: dayOffset(2) },
    ]);
    await p.ok("load");
    expect(await idsOf(p)).toEqual([1, 2]);
  });

  it("lookahead on a timestamp cursor reads only values before now plus it", async () => {
    const p = new TestProject({ t: { columns: ts } }, `[sources.src.tables.t]\ncursor_column = "at_ts"\nlookahead = "1h"\n`);
    p.rows("t", [
      { id: 1, at_ts: isoDaysAgo(0, 1) },
      { id: 2, at_ts: isoDaysAgo(0, -0.5) },
      { id: 3, at_ts: isoDaysAgo(0, -2) },
    ]);
    await p.ok("load");
    expect(await idsOf(p)).toEqual([1, 2]);
  });

  it("columns reads only the listed columns; description shows in plan", async () => {
    const p = new TestProject(
      { t: { columns: { id: "bigint", day: "date", secret: "text" } } },
      `[sources.src.tables.t]\ncursor_column = "day"\ncolumns = ["id", "day"]\ndescription = "Only two columns."\n`,
    );
    p.rows("t", [{ id: 1, day: "2026-10-01", secret: "x" }]);
    const plan = await p.ok("plan");
    expect(plan.stdout).toContain("├── description Only two columns.");
    expect(plan.stdout).toContain("├── columns id, day");
    await p.ok("load");
    expect(
      (
        await p.query("select column_name from information_schema.columns where table_name = 'src__t' order by ordinal_position")
      ).map((r) => r.column_name),
    ).toEqual(["id", "day"]);
  });

  it("integer cursors stay exact beyond 2^53", async () => {
    const p = new TestProject(
      { t: { columns: { id: "bigint not null", seq: "bigint" } } },
      `[sources.src.tables.t]\ncursor_column = "seq"\nwrite_strategy = "append"\n`,
    );
    const base = 9007199254740993n;
    p.rows("t", [{ id: 1, seq: base }]);
    await p.ok("load");
    p.rows("t", [
      { id: 1, seq: base },
      { id: 2, seq: base + 1n },
    ]);
    expect((await p.ok("plan")).stdout).toContain("cursor seq after 9007199254740993 (destination maximum)");
    await p.ok("load");
    expect(await p.query("select id::int as id, seq::varchar as seq from raw.src__t order by id")).toEqual([
      { id: 1, seq: "9007199254740993" },
      { id: 2, seq: "9007199254740994" },
    ]);
  });

  it("text cursors compare by code point: 'B1' before 'a9', astral characters after U+FFFD", async () => {
    const p = new TestProject(
      { t: { columns: { id: "bigint not null", key: "text" } } },
      `[sources.src.tables.t]\ncursor_column = "key"\nwrite_strategy = "append"\n`,
    );
    p.rows("t", [
      { id: 1, key: "B1" },
      { id: 2, key: "\uFFFD" },
    ]);
    await p.ok("load");
    expect((await p.ok("plan")).stdout).toContain("cursor key after '\uFFFD' (destination maximum)");
    // 'a9' sorts after 'B1' but before U+FFFD by code point: not read. The astral character is after U+FFFD: read.
    p.rows("t", [
      { id: 1, key: "B1" },
      { id: 2, key: "\uFFFD" },
      { id: 3, key: "a9" },
      { id: 4, key: "\u{1F600}" },
    ]);
    await p.ok("load");
    expect(await idsOf(p)).toEqual([1, 2, 4]);
    expect((await p.ok("plan")).stdout).toContain("cursor key after '\u{1F600}' (destination maximum)");
  });
});

describe("schema changes", () => {
  it("adds a new source column to the target", async () => {
    const p = new TestProject({ t: { columns: dates } }, `[sources.src.tables.t]\ncursor_column = "day"\n`);
    p.rows("t", [{ id: 1, day: "2026-10-01" }]);
    await p.ok("load");
    const q = new TestProject({ t: { columns: { ...dates, extra: "text" } } }, `[sources.src.tables.t]\ncursor_column = "day"\n`);
    // Same warehouse, new module with a column more.
    const { copyFileSync } = await import("node:fs");
    copyFileSync(`${q.dir}/src.ts`, `${p.dir}/src.ts`);
    p.rows("t", [
      { id: 1, day: "2026-10-01", extra: "now set" },
      { id: 2, day: "2026-10-02", extra: "new" },
    ]);
    await p.ok("load", "--start-cursor", "2026-10-02");
    expect(await p.query("select id::int as id, extra from raw.src__t order by id")).toEqual([
      { id: 1, extra: null },
      { id: 2, extra: "new" },
    ]);
  });

  it("fails a table whose column type no longer fits, naming table, column, old and new type, and moves nothing", async () => {
    const p = new TestProject({ t: { columns: dates } }, `[sources.src.tables.t]\ncursor_column = "day"\n`);
    p.rows("t", [{ id: 1, day: "2026-10-01" }]);
    await p.ok("load");
    const q = new TestProject({ t: { columns: { id: "text", day: "date" } } }, `[sources.src.tables.t]\ncursor_column = "day"\n`);
    const { copyFileSync } = await import("node:fs");
    copyFileSync(`${q.dir}/src.ts`, `${p.dir}/src.ts`);
    p.rows("t", [{ id: "x", day: "2026-10-02" }]);
    const result = await p.run("load");
    expect(result.code).toBe(1);
    // Found when planning, from the declared columns (SL312); the target's own check (SL302) is the backstop.
    expect(result.stderr).toContain("SL312");
    expect(result.stderr).toMatch(/raw\.src__t/);
    expect(result.stderr).toMatch(/"id"/);
    expect(result.stderr).toMatch(/int64|bigint/i);
    expect(result.stderr).toMatch(/text|varchar/i);
    expect(await idsOf(p)).toEqual([1]);
  });
});
