import { describe, expect, it } from "vitest";
import { TestProject } from "./project.js";

// SPEC §6 and §9: batch_size windows, commits per window, and bounded runs.
const dates = { id: "bigint not null", day: "date" };

describe("batch_size windows", () => {
  it("calls the table function once per window with its bounds, and commits each window", async () => {
    const p = new TestProject(
      { t: { columns: dates } },
      `[sources.src.tables.t]\ncursor_column = "day"\ncursor_start = "2026-10-01"\ncursor_end = "2026-10-22"\nbatch_size = "7d"\n`,
    );
    p.rows("t", [
      { id: 1, day: "2026-10-01" },
      { id: 2, day: "2026-10-09" },
      { id: 3, day: "2026-10-21" },
      { id: 4, day: "2026-10-22" },
    ]);
    expect((await p.ok("plan")).stdout).toContain("batch 3 windows of 7days, one commit each");
    const load = await p.ok("load");
    expect(load.stdout).toContain("committed raw.src__t window 1/3 1 rows");
    expect(load.stdout).toContain("committed raw.src__t window 3/3 1 rows");
    expect(p.calls()).toEqual([
      { table: "t", from: "2026-10-01", to: "2026-10-08", window: { index: 0, count: 3 } },
      { table: "t", from: "2026-10-08", to: "2026-10-15", window: { index: 1, count: 3 } },
      { table: "t", from: "2026-10-15", to: "2026-10-22", window: { index: 2, count: 3 } },
    ]);
    expect((await p.query("select id::int as id from raw.src__t order by id")).map((r) => r.id)).toEqual([1, 2, 3]);
    const log = await p.query("select count(*)::int as n from raw._sqlload_runs");
    expect(log).toEqual([{ n: 3 }]);
  });

  it("lays the last window clamped to the end, and an integer batch size on an integer cursor", async () => {
    const p = new TestProject(
      { t: { columns: { id: "bigint not null" } } },
      `[sources.src.tables.t]\ncursor_column = "id"\ncursor_start = "1"\ncursor_end = "26"\nbatch_size = 10\n`,
    );
    p.rows(
      "t",
      Array.from({ length: 30 }, (_, i) => ({ id: i + 1 })),
    );
    await p.ok("load");
    expect(p.calls().map((c) => [c.from, c.to])).toEqual([
      ["1", "11"],
      ["11", "21"],
      ["21", "26"],
    ]);
    expect(await p.query("select count(*)::int as n, max(id)::int as m from raw.src__t")).toEqual([{ n: 25, m: 25 }]);
  });

  it("plans a year of 7-day windows as 53", async () => {
    const p = new TestProject(
      { t: { columns: dates } },
      `[sources.src.tables.t]\ncursor_column = "day"\ncursor_start = "2025-10-01"\ncursor_end = "2026-10-01"\nbatch_size = "7d"\n`,
    );
    p.rows("t", []);
    const plan = await p.ok("plan", "--json");
    const json = JSON.parse(plan.stdout) as { tables: { windows: { count: number; last: { to: { value: string } } } }[] };
    expect(json.tables[0]?.windows.count).toBe(53);
    expect(json.tables[0]?.windows.last.to.value).toBe("2026-10-01");
  });

  it('batch_size = "none" commits once per read', async () => {
    const p = new TestProject({ t: { columns: dates } }, `[sources.src.tables.t]\ncursor_column = "day"\nbatch_size = "none"\n`);
    p.rows("t", [{ id: 1, day: "2026-10-01" }]);
    expect((await p.ok("plan")).stdout).toContain("batch one commit per read");
  });

  it("needs a start on the first run (SL202), and refuses more than 100,000 windows (SL203)", async () => {
    const p = new TestProject(
      { t: { columns: { id: "bigint", at_ts: "timestamp" } } },
      `[sources.src.tables.t]\ncursor_column = "at_ts"\nbatch_size = "1h"\n`,
    );
    p.rows("t", []);
    const noStart = await p.run("load");
    expect(noStart.code).toBe(1);
    expect(noStart.stderr).toContain("SL202");
    expect(noStart.stderr).toContain("cursor_start");
    const tooMany = await p.run("plan", "--start-cursor", "2000-01-01");
    expect(tooMany.stderr).toContain("SL203");
    expect(tooMany.stderr).toMatch(/at least "\d+[hd]"/);
  });

  it("max_windows_per_run bounds a run, and the next run continues from the logged window end", async () => {
    const p = new TestProject(
      { t: { columns: dates } },
      `[sources.src.tables.t]\ncursor_column = "day"\ncursor_start = "2026-10-01"\ncursor_end = "2026-10-29"\nbatch_size = "7d"\nmax_windows_per_run = 1\n`,
    );
    // Each week's rows lie before the week's end: the maximum alone could not say the week was finished.
    p.rows("t", [
      { id: 1, day: "2026-10-02" },
      { id: 2, day: "2026-10-09" },
      { id: 3, day: "2026-10-16" },
      { id: 4, day: "2026-10-23" },
    ]);
    const first = await p.ok("load");
    expect(first.stdout).toMatch(/loaded raw\.src__t 1 rows .*not caught up/);
    expect((await p.ok("plan")).stdout).toContain(
      "cursor day from 2026-10-08 (end of the last committed window), below 2026-10-29 (cursor_end)",
    );
    await p.ok("load");
    await p.ok("load");
    const last = await p.ok("load");
    expect(last.stdout).toMatch(/loaded raw\.src__t 1 rows .*caught up/);
    expect((await p.query("select id::int as id from raw.src__t order by id")).map((r) => r.id)).toEqual([1, 2, 3, 4]);
    const again = await p.ok("load");
    expect(again.stdout).toMatch(/loaded raw\.src__t 0 rows .*caught up/);
  });
});
