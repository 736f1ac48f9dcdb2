import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { CLI, sqlload, tempDir } from "./cli.js";
import { TestProject } from "./project.js";

// SPEC §8–§9: bounded backfills, catching up, machine-readable runs, interruption and locks.
const weekly = (weeks: number[]) =>
  weeks.map((w) => ({ id: w, day: new Date(Date.UTC(2025, 9, 1) + w * 7 * 86_400_000 + 86_400_000).toISOString().slice(0, 10) }));

describe("catching up", () => {
  it("a year in 7-day windows, one per run, catches up in exactly 53 passes and loads every row once", async () => {
    const p = new TestProject(
      { t: { columns: { id: "bigint not null", day: "date" } } },
      `[sources.src.tables.t]\ncursor_column = "day"\ncursor_start = "2025-10-01"\ncursor_end = "2026-10-01"\nbatch_size = "7d"\nmax_windows_per_run = 1\n`,
    );
    p.rows("t", weekly(Array.from({ length: 52 }, (_, i) => i)));
    const run = await p.ok("load", "--until-caught-up");
    expect(run.stdout).toMatch(/done: 1 of 1 table loaded, 52 rows in 53 passes in .*, caught up/);
    expect(await p.query("select count(*)::int as n, count(distinct id)::int as d from raw.src__t")).toEqual([{ n: 52, d: 52 }]);
    const results = JSON.parse(
      await import("node:fs").then((fs) => fs.readFileSync(join(p.dir, ".sqlload", "run_results.json"), "utf8")),
    );
    expect(results).toMatchObject({ pass: 53, caughtUp: true, tables: [{ table: "raw.src__t", caughtUp: true }] });
    const again = await p.ok("load", "--until-caught-up");
    expect(again.stdout).toMatch(/loaded raw\.src__t 0 rows .*caught up/);
    expect(again.stdout).toContain("0 rows in 1 pass");
  });

  it("stops at --max-runs with exit code 3 and says how far each table got", async () => {
    const p = new TestProject(
      { t: { columns: { id: "bigint not null", day: "date" } } },
      `[sources.src.tables.t]\ncursor_column = "day"\ncursor_start = "2025-10-01"\ncursor_end = "2026-10-01"\nbatch_size = "7d"\nmax_windows_per_run = 1\n`,
    );
    p.rows("t", weekly([0, 1, 2, 3, 4, 5]));
    const run = await p.run("load", "--until-caught-up", "--max-runs", "3");
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("not caught up after 3 passes (--max-runs 3)");
    expect(run.stderr).toMatch(/raw\.src__t at 2025-10-1\d/);
    const results = JSON.parse(
      await import("node:fs").then((fs) => fs.readFileSync(join(p.dir, ".sqlload", "run_results.json"), "utf8")),
    );
    expect(results.caughtUp).toBe(false);
    expect(results.tables[0].caughtUp).toBe(false);
  });

  it("skips empty windows so a bounded run always moves data: 40 empty weeks in a DuckDB source", async () => {
    const dir = tempDir();
    const db = await DuckDBInstance.create(join(dir, "source.duckdb"));
    const c = await db.connect();
    await c.run("create table events (id bigint, day date)");
    const weeks = [0, 1, 2, 3, 4, ...Array.from({ length: 7 }, (_, i) => 45 + i)];
    for (const row of weekly(weeks)) await c.run(`insert into events values (${row.id}, DATE '${row.day}')`);
    c.closeSync();
    db.closeSync();
    writeFileSync(
      join(dir, "sqlload.toml"),
      `[target]\npath = "w.duckdb"\n[sources.src]\nconnector = "duckdb"\npath = "source.duckdb"\n[sources.src.tables."main.events"]\ncursor_column = "day"\ncursor_start = "2025-10-01"\ncursor_end = "2026-10-01"\nbatch_size = "7d"\nmax_windows_per_run = 1\n`,
    );
    // Each bounded pass moves one row: the first run alone, the other eleven as the passes of one
    // --until-caught-up run (each pass plans from the target as a new run would), then a run that
    // finds nothing left.
    const completions = (stdout: string): Record<string, unknown>[] =>
      stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((e) => e.event === "table_completed");
    const rowsPerRun: number[] = [];
    for (const args of [[], ["--until-caught-up"]]) {
      const run = await sqlload(["load", "--log-format", "json", ...args], { cwd: dir });
      expect(run.code, run.stderr).toBe(0);
      rowsPerRun.push(...completions(run.stdout).map((e) => e.rows as number));
    }
    expect(rowsPerRun).toEqual(Array(12).fill(1));
    const last = await sqlload(["load", "--log-format", "json"], { cwd: dir });
    expect(completions(last.stdout)).toHaveLength(1);
    expect(completions(last.stdout)[0]).toMatchObject({ rows: 0, caughtUp: true });
  });
});

describe("skipped windows under delete_insert", () => {
  it("a range reload replaces the windows it skips for holding no source rows", async () => {
    const dir = tempDir();
    const db = await DuckDBInstance.create(join(dir, "source.duckdb"));
    const c = await db.connect();
    await c.run("create table events (id bigint, day date)");
    for (const row of weekly([0, 1, 2, 3, 4, 5])) await c.run(`insert into events values (${row.id}, DATE '${row.day}')`);
    writeFileSync(
      join(dir, "sqlload.toml"),
      `[target]\npath = "w.duckdb"\n[sources.src]\nconnector = "duckdb"\npath = "source.duckdb"\n[sources.src.tables."main.events"]\ncursor_column = "day"\ncursor_start = "2025-10-01"\nbatch_size = "7d"\n`,
    );
    c.closeSync();
    db.closeSync();
    expect((await sqlload(["load"], { cwd: dir })).code).toBe(0);
    // Weeks 1–3 vanish from the source; a reload of [week 0, week 6) must remove them from the target too.
    const again = await DuckDBInstance.create(join(dir, "source.duckdb"));
    const c2 = await again.connect();
    await c2.run("delete from events where id in (1, 2, 3)");
    c2.closeSync();
    again.closeSync();
    const reload = await sqlload(["load", "--start-cursor", "2025-10-01", "--end-cursor", "2025-11-12"], { cwd: dir });
    expect(reload.code, reload.stderr).toBe(0);
    const rows = await (await import("./cli.js")).queryDuckDB(
      join(dir, "w.duckdb"),
      "select id::int as id from raw.src__events order by id",
    );
    expect(rows.map((r) => r.id)).toEqual([0, 4, 5]);
  });
});

describe("--log-format json", () => {
  it("prints one JSON object per line with a schemaVersion, for every event of the run", async () => {
    const p = new TestProject(
      { t: { columns: { id: "bigint not null", day: "date" } } },
      `[sources.src.tables.t]\ncursor_column = "day"\ncursor_start = "2025-10-01"\ncursor_end = "2025-10-22"\nbatch_size = "7d"\n`,
    );
    p.rows("t", weekly([0, 1, 2]));
    const run = await p.ok("load", "--log-format", "json");
    const events = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.every((e) => e.schemaVersion === 1)).toBe(true);
    expect(events.map((e) => e.event)).toEqual([
      "run_started",
      "table_started",
      "window_committed",
      "window_committed",
      "window_committed",
      "table_completed",
      "run_completed",
    ]);
    expect(events[5]).toMatchObject({
      table: "raw.src__t",
      status: "loaded",
      rows: 3,
      positionBefore: null,
      positionAfter: { kind: "date", value: "2025-10-16" },
      caughtUp: true,
    });
    const failing = new TestProject(
      { t: { columns: { id: "bigint not null" } } },
      `[sources.src.tables.t]\nwrite_strategy = "merge"\nprimary_key = ["id"]\n`,
    );
    failing.rows("t", [{ id: 1 }, { id: 1 }]);
    const failed = await failing.run("load", "--log-format", "json");
    expect(failed.code).toBe(1);
    const event = failed.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((e) => e.event === "table_failed");
    expect(event.error).toMatchObject({ code: "SL301", retryable: false });
  });
});

/** A project whose table function sleeps in its second window, so a test can interrupt or race it. */
function slowProject(): TestProject {
  const p = new TestProject(
    { t: { columns: { id: "bigint not null", day: "date" } } },
    `[sources.src.tables.t]\ncursor_column = "day"\ncursor_start = "2025-10-01"\ncursor_end = "2025-10-15"\nbatch_size = "7d"\n`,
  );
  p.rows("t", weekly([0, 1]));
  const src = join(p.dir, "src.ts");
  const text = readFileSync(src, "utf8");
  writeFileSync(
    src,
    text.replace(
      "yield rows(",
      'if (ctx.window?.index === 1) { yield rows("t").slice(1); appendFileSync(join(process.cwd(), "mid-window"), ""); await new Promise((r) => setTimeout(r, 60_000)); }\n    yield rows(',
    ),
  );
  return p;
}

function startLoad(dir: string, args: string[] = []) {
  const child = spawn(process.execPath, [CLI, "load", ...args], {
    cwd: dir,
    env: { ...process.env, NODE_PATH: "", NO_COLOR: "1" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<number>((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? 128 : -1))));
  const waitFor = async (text: string) => {
    for (let i = 0; i < 300 && !stdout.includes(text); i++) await new Promise((r) => setTimeout(r, 100));
    if (!stdout.includes(text)) throw new Error(`never saw ${text}: ${stdout} ${stderr}`);
  };
  return { child, exited, waitFor, output: () => ({ stdout, stderr }) };
}

describe("interruption and locks", () => {
  it("SIGINT mid-window rolls the window back, starts nothing more, and exits 130", async () => {
    const p = slowProject();
    const run = startLoad(p.dir);
    await run.waitFor("window 1/2");
    // Mid-window: the second window's first batch is written and its read is waiting.
    for (let i = 0; i < 300 && !existsSync(join(p.dir, "mid-window")); i++) await new Promise((r) => setTimeout(r, 50));
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(130);
    expect(run.output().stderr).toContain("interrupted");
    expect(await p.query("select id::int as id from raw.src__t")).toEqual([{ id: 0 }]);
  });

  it("refuses a second concurrent run of the same tables with exit code 75", async () => {
    const p = slowProject();
    const first = startLoad(p.dir);
    await first.waitFor("window 1/2");
    const second = await p.run("load");
    expect(second.code).toBe(75);
    expect(second.stderr).toMatch(/SL306/);
    first.child.kill("SIGKILL");
    await first.exited;
  });
});
