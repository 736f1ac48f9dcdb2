import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sqlload, tempDir } from "./cli.js";
import { TestProject } from "./project.js";

// Issue 13 items 6-9: what text output says after failures, in plan lines, for positions, and in the run log.
const MODULE = `import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkpoint, source, type Context } from "sqlload";

const shop = source("shop");
const failAt = () => (existsSync(join(process.cwd(), "fail_at")) ? Number(readFileSync(join(process.cwd(), "fail_at"), "utf8")) : -1);

/** Four pages of 100 events, a checkpoint after each; fail_at makes the API fail before that page. */
export const events = shop.table(
  { writeStrategy: "append", state: "logged", columns: { id: "bigint not null", at: "timestamp" } },
  async function* events(ctx: Context<number>) {
    for (let p = ctx.state ?? 0; p < 4; p++) {
      if (p === failAt()) throw new Error("the API failed on page " + p);
      yield Array.from({ length: 100 }, (_, i) => ({ id: p * 100 + i + 1, at: new Date(Date.UTC(2026, 10, 30, 23, 54, 44, 640) + p * 100 + i) }));
      yield checkpoint(p + 1);
    }
  },
);
`;

function shop(toml = "") {
  const dir = tempDir("sqlload-output-");
  writeFileSync(join(dir, "shop.ts"), MODULE);
  writeFileSync(
    join(dir, "sqlload.toml"),
    `[target]\npath = "w.duckdb"\n\n[sources.shop]\nconnector = "typescript"\nmodule = "shop.ts"\n${toml}`,
  );
  const run = (...args: string[]) => sqlload(args, { cwd: dir });
  const failAt = (page: number | undefined) =>
    page === undefined ? rmSync(join(dir, "fail_at"), { force: true }) : writeFileSync(join(dir, "fail_at"), String(page));
  return { dir, run, failAt };
}

describe("summaries after a failed table", () => {
  it("say what committed: rows and commits", async () => {
    const p = shop();
    p.failAt(3);
    const result = await p.run("load");
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("failed raw.shop__events after 300 rows committed (3 commits)");
    expect(result.stdout).toMatch(/done: 0 of 1 table loaded, 300 rows in .*, 1 not loaded/);
  });
});

describe("plan lines", () => {
  it("a logged table that commits at each checkpoint says so", async () => {
    const plan = await shop().run("plan");
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("batch one commit per checkpoint, and one for the rows after the last");
    expect(plan.stdout).not.toContain("one commit per read");
  });

  it("a project with no tables says there is nothing to load and why, in plan and load", async () => {
    const dir = tempDir("sqlload-output-");
    writeFileSync(join(dir, "sqlload.toml"), `[target]\npath = "w.duckdb"\n`);
    for (const command of ["plan", "load"]) {
      const result = await sqlload([command], { cwd: dir });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain("nothing to load:");
      expect(result.stdout).toContain("has no tables (it has no sources)");
    }
  });

  it("a selection that matches no table is a usage error naming it", async () => {
    const p = shop();
    for (const command of ["plan", "load"]) {
      const result = await p.run(command, "shop__nope");
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("error SL114: no table matches `shop__nope`");
    }
  });

  it("--reload of a windowed table says it is built over bounded runs (DuckDB resumes reloads), in plan and in --help", async () => {
    const p = new TestProject(
      { t: { columns: { id: "bigint", day: "date" } } },
      `[sources.src.tables.t]\ncursor_column = "day"\ncursor_start = "2026-10-01"\ncursor_end = "2026-10-08"\nbatch_size = "1d"\nmax_windows_per_run = 2\n`,
    );
    p.rows("t", [{ id: 1, day: "2026-10-01" }]);
    const plan = await p.ok("plan", "--reload");
    expect(plan.stdout).toContain("raw.src__t ← src.t (reload starting, window 1 of 7, old table live until the swap)");
    expect(plan.stdout).toContain(
      "note --reload builds the new table in raw.src__t__sqlload_reload window by window, over as many runs as max_windows_per_run needs",
    );
    expect((await p.ok("plan")).stdout).not.toContain("sqlload_reload");
    for (const command of ["plan", "load"]) {
      const help = await p.run(command, "--help");
      expect(help.stdout.replace(/\s+/g, " ")).toContain("max_windows_per_run and --max-windows do not apply");
    }
  });
});

describe("positions in text output", () => {
  it("load prints positions as plan does (SPEC §4); JSON keeps RFC 3339", async () => {
    const p = shop(`\n[sources.shop.tables.events]\ncursor_column = "at"\n`);
    const load = await p.run("load", "--no-progress");
    expect(load.code, load.stderr).toBe(0);
    expect(load.stdout).toContain("position 2026-11-30 23:54:44.739000+00");
    expect(load.stdout).not.toMatch(/position \d{4}-\d\d-\d\dT/);
    const again = await p.run("load", "--reload", "--log-format", "json");
    expect(again.stdout).toContain('"2026-11-30T23:54:45.039000Z"');
  });
});

describe("the run log of a checkpointed run", () => {
  it("holds no record that changes nothing: one per checkpoint, none for the empty tail", async () => {
    const p = shop();
    expect((await p.run("load")).code).toBe(0);
    const show = await p.run("logged-state", "show", "shop__events");
    const history = show.stdout.split("\n").filter((line) => /^\s*#\d+ /.test(line));
    expect(history, show.stdout).toHaveLength(4);
    expect(history.filter((line) => line.endsWith(" 0 rows"))).toEqual([]);
    // A run that finds nothing new still leaves one record marking it.
    expect((await p.run("load")).code).toBe(0);
    const after = (await p.run("logged-state", "show", "shop__events")).stdout.split("\n").filter((l) => /^\s*#\d+ /.test(l));
    expect(after).toHaveLength(5);
  });
});
