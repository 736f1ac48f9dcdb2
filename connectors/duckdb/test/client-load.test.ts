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

it("begins DuckDB's instance before the client loads, attaches the file to it, and closes one begun otherwise", () => {
  // DuckDB's native functions cannot be wrapped in place; the module's cached exports are replaced
  // before anything loads it, so the connector and the client count their instances through these.
  const script = `
    import { writeFileSync } from "node:fs";
    import { createRequire } from "node:module";
    const require = createRequire(${JSON.stringify(dist)});
    const path = require.resolve("@duckdb/node-bindings");
    const native = require(path);
    const counts = { opened: 0, closed: 0 };
    const counting = Object.create(native, {
      open: { value: (...args) => (counts.opened++, native.open(...args)) },
      close_sync: { value: (db) => (counts.closed++, native.close_sync(db)) },
    });
    require.cache[path].exports = counting;
    const { default: duckdb } = await import(${JSON.stringify(dist)});
    const context = { options: { path: "begun.duckdb" }, projectDir: ${JSON.stringify(dir)} };
    const pending = duckdb.target(context);
    const begunAtOnce = counts.opened;
    const target = await pending;
    await target.connect();
    const described = await target.describeTable({ schema: "raw", name: "none" });
    const attached = counts.opened;
    // A second target on the file this process has open shares it: the instance it began is closed unused.
    const second = await duckdb.target(context);
    await second.connect();
    for (let i = 0; i < 200 && counts.closed === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const shared = { opened: counts.opened, closed: counts.closed };
    await second.close();
    await target.close();
    const closed = counts.closed;
    // A file with a write-ahead log is attached under DuckDB's own limit: begun so too, and taken.
    writeFileSync(${JSON.stringify(dir)} + "/logged.duckdb.wal", "");
    const logged = await duckdb.target({ options: { path: "logged.duckdb" }, projectDir: ${JSON.stringify(dir)} });
    await logged.connect();
    const recovered = counts.opened - shared.opened;
    await logged.close();
    // One begun with other options (a write-ahead log that appeared meanwhile, say) is closed, not used.
    const { openTarget } = await import(${JSON.stringify(dist.replace(/index\.js$/, "engine.js"))});
    const before = counts.closed;
    const other = { options: { memory_limit: "100MB" }, database: counting.open(":memory:") };
    const again = await openTarget(context, other);
    await again.connect();
    await new Promise((resolve) => setImmediate(resolve));
    const discarded = counts.closed - before;
    await again.close();
    console.log(JSON.stringify({ begunAtOnce, described, attached, shared, closed, recovered, opened: counts.opened, discarded, finally: counts.closed }));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(JSON.parse(out)).toEqual({
    begunAtOnce: 1,
    described: null,
    attached: 1,
    shared: { opened: 2, closed: 1 },
    closed: 2,
    recovered: 1,
    opened: 5,
    discarded: 1,
    finally: 5,
  });
});
