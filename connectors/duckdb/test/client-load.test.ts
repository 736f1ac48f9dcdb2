import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, expect, it } from "vitest";

// What a user's process loads: the built package (pnpm build). A bundler may order modules
// differently from the sources, so this runs the bundle itself: loading the connector (which every
// command of a project using DuckDB does, `check` included) must not load DuckDB's native library,
// which only opening a database needs.
const here = dirname(fileURLToPath(import.meta.url));
const dist = pathToFileURL(join(here, "..", "dist", "index.js")).href;
const dir = mkdtempSync(join(tmpdir(), "sqlload-duckdb-load-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("loads DuckDB's native library only when a database opens, and says which opens create nothing", () => {
  writeFileSync(join(dir, "there.duckdb"), "");
  const script = `
    const loaded = () => process.report.getReport().sharedObjects.some((o) => o.endsWith("duckdb.node"));
    const { default: duckdb } = await import(${JSON.stringify(dist)});
    const afterImport = loaded();
    const inert = (options) => duckdb.targetOpenIsInert({ options, projectDir: ${JSON.stringify(dir)} });
    const inertness = [inert({}), inert({ path: "there.duckdb" }), inert({ path: "sub/new.duckdb" }), inert({ path: ":memory:" })];
    const target = await duckdb.target({ options: { path: ":memory:" }, projectDir: ${JSON.stringify(dir)} });
    const afterOpen = loaded();
    await target.close();
    console.log(JSON.stringify({ afterImport, inertness, afterOpen }));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  // The default file, warehouse.duckdb, is not there yet: opening it would create it.
  expect(JSON.parse(out)).toEqual({ afterImport: false, inertness: [false, true, false, true], afterOpen: true });
});

// jemalloc is in DuckDB's Linux builds for glibc only (not macOS, Windows or musl).
const jemalloc =
  process.platform === "linux" &&
  (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime !== undefined;

it.skipIf(!jemalloc)("gives DuckDB's allocator one arena when a target loads it, and leaves the environment as it was", () => {
  // jemalloc prints its settings at exit (stats_print, the user's here): the arena count it ran with.
  const script = `
    const { default: duckdb } = await import(${JSON.stringify(dist)});
    const target = await duckdb.target({ options: { path: ":memory:" }, projectDir: ${JSON.stringify(dir)} });
    await target.close();
    console.log(process.env.DUCKDB_JE_MALLOC_CONF);
  `;
  const run = (conf: string) =>
    spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { ...process.env, DUCKDB_JE_MALLOC_CONF: conf },
    });
  const ours = run("stats_print:true,stats_print_opts:mdablxe");
  expect(ours.status, ours.stderr).toBe(0);
  expect(ours.stdout.trim()).toBe("stats_print:true,stats_print_opts:mdablxe");
  expect(`${ours.stdout}${ours.stderr}`).toMatch(/opt\.narenas: 1\b/);
  // A user's own arenas win.
  const theirs = run("narenas:3,stats_print:true,stats_print_opts:mdablxe");
  expect(theirs.status, theirs.stderr).toBe(0);
  expect(`${theirs.stdout}${theirs.stderr}`).toMatch(/opt\.narenas: 3\b/);
});
