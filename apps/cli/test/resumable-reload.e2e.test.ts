import { runSqlload } from "@sqlload/testing";
import { describe, expect, it } from "vitest";
import type { TestProject } from "./project.js";
import { duckdbAndPostgres } from "./targets.js";

// SPEC §13: a --reload of a windowed table is built window by window over bounded runs while the
// old table stays live, resumes after a kill, and is swapped in once caught up; DuckDB and Postgres.
const targets = duckdbAndPostgres();

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);
const dayOf = (offset: number) => new Date(START + offset * DAY).toISOString().slice(0, 10);

/** Six weekly windows from 2026-01-01, at most two per run. */
const TOML = `[sources.src.tables.t]
cursor_column = "day"
cursor_start = "2026-01-01"
cursor_end = "2026-02-12"
batch_size = "7d"
max_windows_per_run = 2
write_strategy = "delete_insert"
`;

type Row = { id: number; day: string; v: string };

/** Fourteen rows, one every three days, so every window holds two or three. */
const oldRows: Row[] = Array.from({ length: 14 }, (_, i) => ({ id: i + 1, day: dayOf(i * 3), v: "old" }));
/** Upstream changed every row, deleted id 5 and added id 15 in the last window. */
const newRows: Row[] = [
  ...oldRows.filter((r) => r.id !== 5).map((r) => ({ ...r, v: "new" })),
  { id: 15, day: dayOf(41), v: "new" },
];

const sorted = (rows: readonly Row[]) => [...rows].sort((a, b) => a.id - b.id);

describe.each(targets)("resumable reload into $name", (target) => {
  const live = (p: TestProject) =>
    target.query(p, "select id::int as id, cast(day as varchar) as day, v from raw.src__t order by id") as Promise<Row[]>;
  const buildExists = async (p: TestProject) =>
    (
      await target.query(
        p,
        "select count(*)::int as n from information_schema.tables where table_schema = 'raw' and table_name = 'src__t__sqlload_reload'",
      )
    )[0]!.n === 1;

  it("builds over bounded runs with the old table live, resumes after SIGKILL, refuses a second --reload, and swaps in", async () => {
    const p = await target.project({ t: { columns: { id: "bigint not null", day: "date", v: "text" } } }, TOML);
    p.rows("t", oldRows);
    await p.ok("load", "--max-windows", "6");
    expect(await live(p)).toEqual(oldRows);

    // Run 1 of the reload: two windows into the build table; readers still see the old rows.
    p.rows("t", newRows);
    const first = await p.ok("load", "--reload");
    expect(first.stdout).toContain("reload building, old table live until the swap");
    expect(first.stdout).toContain("not caught up");
    expect(await live(p)).toEqual(oldRows);
    expect(await buildExists(p)).toBe(true);

    const plan = await p.ok("plan");
    expect(plan.stdout).toContain("raw.src__t ← src.t (reload in progress, window 3 of 6, old table live until the swap)");
    expect(plan.stdout).toContain("a plain load continues it, and the live table is not loaded incrementally until the swap");
    expect(plan.stdout).toContain(
      "cursor day from 2026-01-15 (end of the reload's last built window), below 2026-02-12 (cursor_end)",
    );

    const again = await p.run("load", "--reload");
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("SL213");
    expect(again.stderr).toContain("--reload --restart");
    expect(await live(p)).toEqual(oldRows);

    // A rollback recorded now would be dropped at the swap: refused, naming the way out.
    const runs = JSON.parse((await p.ok("runs", "--json")).stdout) as { tables: { runs: { runId: string }[] }[] };
    const runId = runs.tables[0]!.runs.at(-1)!.runId;
    const rollback = await p.run("rollback", "src__t", "--to-run", runId, "--yes");
    expect(rollback.code).not.toBe(0);
    expect(rollback.stderr).toContain("SL504");
    expect(rollback.stderr).toContain("in the middle of a reload");
    expect(rollback.stderr).toContain("--reload --restart");

    // Killed while writing window 4, after window 3 committed (the 3rd pass of `write`).
    const killed = await runSqlload(["load"], { cwd: p.dir, env: { SQLLOAD_TEST_CRASH: "write:3" } });
    expect(killed.signal).toBe("SIGKILL");
    expect(await live(p)).toEqual(oldRows);

    const json = JSON.parse((await p.ok("plan", "--json")).stdout) as {
      tables: { reloadBuild: { phase: string; windowsBuilt: number; windowsTotal: number; line: string } | null }[];
    };
    expect(json.tables[0]!.reloadBuild).toMatchObject({
      phase: "resume",
      windowsBuilt: 3,
      windowsTotal: 6,
      line: "reload in progress, window 4 of 6, old table live until the swap",
    });

    // A plain load continues from the last committed window: window 4 again, nothing doubled.
    p.calls();
    const resumed = await p.ok("load");
    expect(p.calls().map((c) => [c.from, c.to])).toEqual([
      ["2026-01-22", "2026-01-29"],
      ["2026-01-29", "2026-02-05"],
    ]);
    expect(resumed.stdout).toContain("committed raw.src__t window 4/6");
    expect(resumed.stdout).toContain("reload building");
    expect(await live(p)).toEqual(oldRows);

    const finished = await p.ok("load", "--until-caught-up");
    expect(finished.stdout).toContain("reload swapped in");
    expect(finished.stdout).toMatch(/in 1 pass\b.*caught up/);
    expect(await live(p)).toEqual(sorted(newRows));
    expect(await buildExists(p)).toBe(false);

    // --reload --until-caught-up drives a new reload to the swap in one invocation: three bounded passes.
    const newer = newRows.map((r) => ({ ...r, v: "newer" }));
    p.rows("t", newer);
    const whole = await p.ok("load", "--reload", "--until-caught-up");
    expect(whole.stdout).toMatch(/in 3 passes.*caught up/);
    expect(whole.stdout).toContain("reload swapped in");
    expect(await live(p)).toEqual(sorted(newer));
    expect(await buildExists(p)).toBe(false);
  });
});
