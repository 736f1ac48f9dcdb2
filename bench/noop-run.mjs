#!/usr/bin/env node
// A no-op incremental run (the table is up to date) against `sqlload --version`, both through the
// built CLI in child processes, best of N each, interleaved. Goal (issue 4): under 2x.
//   pnpm build && node bench/noop-run.mjs [--repeat 7] [--rows 100000]
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgres } from "../packages/testing/dist/index.js";

// pg is a dependency of the testing package, not of the workspace root.
const pg = createRequire(join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "testing", "package.json"))("pg");

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const repeat = arg("repeat", 7);
const rows = arg("rows", 100_000);
const cli = join(dirname(fileURLToPath(import.meta.url)), "..", "apps", "cli", "bin", "run.js");

const server = await startPostgres();
try {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query(`create table public.orders (id bigint, customer_id bigint, amount numeric(12,2), status text, updated_at timestamptz);
    insert into public.orders select g, g % 5000, (g % 10000) / 100.0, 'paid', '2026-01-01'::timestamptz + g * interval '1 second' from generate_series(1, ${rows}) g;
    create index on public.orders (updated_at);`);
  await client.end();
  const dir = mkdtempSync(join(tmpdir(), "sqlload-noop-"));
  writeFileSync(
    join(dir, "sqlload.toml"),
    `[target]\npath = "w.duckdb"\n\n[sources.app]\nconnector = "postgres"\nurl = "${server.url}"\n\n[sources.app.tables."public.orders"]\ncursor_column = "updated_at"\n`,
  );
  const run = (args) => {
    const started = process.hrtime.bigint();
    execFileSync(process.execPath, [cli, ...args], { cwd: dir, stdio: "pipe" });
    return Number(process.hrtime.bigint() - started) / 1e9;
  };
  run(["load"]); // the first load copies the table; every later one finds it up to date
  const noop = [];
  const version = [];
  for (let i = 0; i < repeat; i++) {
    version.push(run(["--version"]));
    noop.push(run(["load"]));
  }
  const best = (xs) => Math.min(...xs);
  console.log(
    `sqlload --version        best ${best(version).toFixed(3)} s  (all: ${version.map((x) => x.toFixed(2)).join(" ")})`,
  );
  console.log(`no-op incremental load   best ${best(noop).toFixed(3)} s  (all: ${noop.map((x) => x.toFixed(2)).join(" ")})`);
  console.log(`ratio ${(best(noop) / best(version)).toFixed(2)}x (goal: under 2x)`);
} finally {
  await server.stop();
}
