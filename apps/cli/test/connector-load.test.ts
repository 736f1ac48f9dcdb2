import { isAscii } from "node:buffer";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { sqlload } from "./cli.js";
import { TestProject } from "./project.js";

// Every run loads its connectors' entries (pnpm build); what they evaluate on load, every run pays.
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const dist = (group: string, name: string) => pathToFileURL(join(root, group, name, "dist", "index.js")).href;
const connectors = ["duckdb", "postgres", "files", "typescript", "clickhouse", "bigquery", "snowflake", "databricks"].map(
  (name) => dist("connectors", name),
);
const run = (script: string, env: NodeJS.ProcessEnv = {}) =>
  execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: { ...process.env, ...env } });

// The first `toLocaleString` or `Intl.NumberFormat` of a process loads ICU's number formats (about
// 15–20 ms, a tenth of a no-op load), so nothing may format a number that way on load: counts are
// grouped with core's `formatCount`.
it("loads every connector without formatting a number through Intl", () => {
  const out = run(`
    const used = [];
    const trap = (name) => function () { used.push(name + " " + new Error().stack.split("\\n")[2]?.trim()); };
    Number.prototype.toLocaleString = trap("Number.prototype.toLocaleString");
    BigInt.prototype.toLocaleString = trap("BigInt.prototype.toLocaleString");
    Intl.NumberFormat = trap("Intl.NumberFormat");
    for (const entry of ${JSON.stringify(connectors)}) await import(entry);
    console.log(JSON.stringify(used));
  `);
  expect(JSON.parse(out)).toEqual([]);
});

// The packages built as cached CommonJS (core with smol-toml, the Postgres connector with pg, the
// DuckDB connector and its engine with the DuckDB client) are loaded through V8's code cache
// (packages/core/src/start-up/require-compiled.ts): the first run writes it, the next ones use what
// it wrote, and each works as loaded.
it("loads the built-in clients through the code cache the first run wrote", () => {
  const cache = mkdtempSync(join(tmpdir(), "sqlload-compile-cache-test-"));
  try {
    const script = `
      const core = await import(${JSON.stringify(dist("packages", "core"))});
      const duckdb = (await import(${JSON.stringify(dist("connectors", "duckdb"))})).default;
      const postgres = (await import(${JSON.stringify(dist("connectors", "postgres"))})).default;
      const target = await duckdb.target({ options: { path: ":memory:" }, projectDir: "." });
      const table = await target.describeTable({ schema: "main", name: "none" });
      await target.close();
      const source = await postgres.source({ options: { url: "postgresql://postgres@127.0.0.1:9/none", connect_timeout: 2 }, projectDir: ".", sourceName: "s" });
      const error = await source.describeTable({ table: core.parseTableKey("public.t"), options: {} }).then(() => null, (e) => e.code);
      console.log(JSON.stringify({ table, error }));
    `;
    const env = { SQLLOAD_COMPILE_CACHE: cache };
    expect(JSON.parse(run(script, env))).toEqual({ table: null, error: "SL304" });
    const files = readdirSync(cache).sort();
    // core, the Postgres connector, the DuckDB connector and its engine, which opening a database loaded.
    expect(files).toHaveLength(4);
    const inodes = files.map((f) => statSync(join(cache, f)).ino);
    expect(JSON.parse(run(script, env))).toEqual({ table: null, error: "SL304" });
    // V8 took every cache: none was compiled and written again.
    expect(readdirSync(cache).sort()).toEqual(files);
    expect(files.map((f) => statSync(join(cache, f)).ino)).toEqual(inodes);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

// V8 holds a script's text at one byte a character only when every character is ASCII, and at two
// otherwise, with a copy of each made on the way: the build escapes what lies beyond ASCII and drops
// comments, so the files the code cache serves load in half the memory (scripts/bundle-dist.mjs).
it("builds every file loaded through the code cache in ASCII", () => {
  const listing = (folder: string) => {
    try {
      return readdirSync(folder).map((name) => join(folder, name));
    } catch {
      return [];
    }
  };
  const files = ["packages", "connectors", "apps"]
    .flatMap((group) => listing(join(root, group)))
    .flatMap((pkg) => [...listing(join(pkg, "dist")), ...listing(join(pkg, "dist", "vendor"))])
    .filter((file) => file.endsWith(".cjs"));
  // core, the CLI's oclif, and the DuckDB and Postgres connectors at least.
  expect(files.length).toBeGreaterThanOrEqual(5);
  const beyondAscii = files.filter((file) => !isAscii(readFileSync(file)));
  expect(beyondAscii).toEqual([]);
});

// oclif is built into the CLI (apps/cli/package.json `sqlloadBuild`) and loaded the same way; it
// loads each command with import(), which Node 20 drops from code read back from the cache, so the
// build routes it through the module that loads oclif (scripts/bundle-dist.mjs).
it("runs a command with oclif loaded from the code cache the first run wrote", () => {
  const cache = mkdtempSync(join(tmpdir(), "sqlload-compile-cache-test-"));
  const bin = join(root, "apps", "cli", "bin", "run.js");
  try {
    const listConnectors = () =>
      execFileSync(process.execPath, [bin, "connectors"], {
        encoding: "utf8",
        env: { ...process.env, SQLLOAD_COMPILE_CACHE: cache },
      });
    const first = listConnectors();
    // In the order of their names, whichever plugin oclif finished loading first.
    expect(
      first
        .split("\n")
        .slice(1, 5)
        .map((line) => line.split(" ")[0]),
    ).toEqual(["duckdb", "files", "postgres", "typescript"]);
    const files = readdirSync(cache).sort();
    expect(files.length).toBeGreaterThan(0);
    const inodes = files.map((f) => statSync(join(cache, f)).ino);
    expect(listConnectors()).toBe(first);
    // V8 took every cache: none was compiled and written again.
    expect(readdirSync(cache).sort()).toEqual(files);
    expect(files.map((f) => statSync(join(cache, f)).ino)).toEqual(inodes);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

// A cache is written when the run that lacked it exits, with what that run compiled; the first
// command after an upgrade is often a short one (`--version`, `check`), whose caches a load replaces,
// and a load that compiled much more than a cache held writes it again.
it("keeps a short command's compiled code apart, and the first load's in its place", async () => {
  const cache = mkdtempSync(join(tmpdir(), "sqlload-compile-cache-test-"));
  const p = new TestProject({ t: { columns: { id: "bigint" } } }, `[sources.src.tables.t]\ncursor_column = "id"\n`);
  p.rows("t", [{ id: 1n }]);
  const env = { SQLLOAD_COMPILE_CACHE: cache };
  try {
    expect((await sqlload(["--version"], { cwd: p.dir, env })).code).toBe(0);
    const short = readdirSync(cache);
    expect(short.length).toBeGreaterThan(0);
    expect(short.filter((f) => !f.endsWith(".part.v8"))).toEqual([]);
    // oclif's: what `--version` compiles of it is far less than what a load does.
    const version = short
      .map((f) => ({ name: f, bytes: readFileSync(join(cache, f)) }))
      .sort((a, b) => b.bytes.length - a.bytes.length)[0]!;
    // A load its checks stop loads nothing: it keeps partial caches too.
    const toml = join(p.dir, "sqlload.toml");
    const config = readFileSync(toml, "utf8");
    writeFileSync(toml, config.replace('cursor_column = "id"', 'cursor_column = "nope"'));
    expect((await sqlload(["load"], { cwd: p.dir, env })).code).toBe(2);
    expect(readdirSync(cache).filter((f) => !f.endsWith(".part.v8"))).toEqual([]);
    writeFileSync(toml, config);
    const loaded = await sqlload(["load"], { cwd: p.dir, env });
    expect(loaded.code, loaded.stderr).toBe(0);
    const whole = readdirSync(cache).sort();
    expect(whole.filter((f) => f.endsWith(".part.v8"))).toEqual([]);
    expect(whole.length).toBeGreaterThanOrEqual(short.length);
    const sizes = () => whole.map((f) => statSync(join(cache, f)).size);
    const firstLoad = sizes();
    // The first incremental load calls code the first load did not (the run log, the maximum):
    // it may write the caches again, with the first load's code and its own, so none shrinks
    // (but for V8's serialization moving a few bytes either way).
    expect((await sqlload(["load"], { cwd: p.dir, env })).code).toBe(0);
    expect(readdirSync(cache).sort()).toEqual(whole);
    const grown = sizes();
    for (let i = 0; i < grown.length; i++) expect(grown[i]).toBeGreaterThanOrEqual(0.99 * firstLoad[i]!);
    // Then they serve every later run, short or not, and none writes them again, not even its
    // kind into a file's header.
    const contents = () => whole.map((f) => readFileSync(join(cache, f)).toString("base64"));
    const settled = contents();
    expect((await sqlload(["--version"], { cwd: p.dir, env })).code).toBe(0);
    expect((await sqlload(["load"], { cwd: p.dir, env })).code).toBe(0);
    expect((await sqlload(["load"], { cwd: p.dir, env })).code).toBe(0);
    expect(readdirSync(cache).sort()).toEqual(whole);
    expect(contents()).toEqual(settled);
    // A whole cache that lacks much of what a load runs, as a long first run's does (V8 dropped
    // code it had not run for a while): `--version`'s code of oclif in the whole cache's place.
    const oclif = join(cache, version.name.replace(/\.part\.v8$/, ".v8"));
    expect(whole).toContain(basename(oclif));
    writeFileSync(oclif, version.bytes);
    const lacking = statSync(oclif).ino;
    expect((await sqlload(["load"], { cwd: p.dir, env })).code).toBe(0);
    // The next load wrote it again, with what it runs; the one after writes nothing.
    expect(statSync(oclif).ino).not.toBe(lacking);
    expect(statSync(oclif).size).toBeGreaterThan(version.bytes.length + 4096);
    const widened = readFileSync(oclif);
    expect((await sqlload(["load"], { cwd: p.dir, env })).code).toBe(0);
    expect(readFileSync(oclif).equals(widened)).toBe(true);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});
