#!/usr/bin/env node
// A no-op incremental run (the table is up to date) against `sqlload --version`, both through the
// built CLI in child processes, best of N each, interleaved. Goal (issues 4 and 15): under 2x.
// Wall time and CPU time are both reported: on a shared machine the CPU time is the steadier one.
// `--history N` first gives the table N more run-log records (copies of its newest), as months of
// scheduled runs would: the log gains a record per run and is never trimmed (DuckDB target only).
// `--target postgres` loads into a second database of the same server instead of the DuckDB file,
// `--target clickhouse` into chdb (ClickHouse in process, its connector installed beside the project);
// `--latency MS` puts that database MS ms of round trip away (a remote warehouse), through a local
// proxy that delays each direction MS/2 ms; the source stays direct.
// Beside the ratio of the two best runs, the median of each pair's ratio (a `--version` run and the
// no-op run after it): steadier on a shared machine, where one lucky `--version` run moves the first.
// Every run uses a compile cache of the bench's own (SQLLOAD_COMPILE_CACHE), empty at the start, as
// after an upgrade: the first load writes it. `--user-cache` uses the machine's instead, whichever
// runs wrote it (docs/operating.md, "Start-up and the compile cache").
//   pnpm build && node bench/noop-run.mjs [--repeat 7] [--rows 100000] [--history 10000] [--target postgres [--latency 10] | clickhouse] [--user-cache] [--quick]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg, buildOrders, cli, describeMachine, duckdb, hasFlag, importBuilt, installClickHouse, peakRss } from "./common.mjs";
import { startLatencyProxy } from "./latency-proxy.mjs";

const quick = hasFlag("quick");
const repeat = arg("repeat", quick ? 1 : 7);
const rows = arg("rows", quick ? 1_000 : 100_000);
const history = arg("history", 0);
const targetIndex = process.argv.indexOf("--target");
const targetKind = targetIndex >= 0 ? process.argv[targetIndex + 1] : "duckdb";
if (!["duckdb", "postgres", "clickhouse"].includes(targetKind))
  throw new Error(`--target is duckdb, postgres or clickhouse, not ${targetKind}`);
if (history > 0 && targetKind !== "duckdb") throw new Error("--history lengthens a DuckDB target's run log only");
const latency = arg("latency", 0);
if (!(latency >= 0)) throw new Error("--latency is a round-trip time in milliseconds, 0 or more");
if (hasFlag("latency") && targetKind !== "postgres")
  throw new Error("--latency delays a Postgres target only: add --target postgres");
const { createDatabase, startPostgres } = await importBuilt("packages/testing/dist/index.js");

const server = await startPostgres();
const dir = mkdtempSync(join(tmpdir(), "sqlload-noop-"));
let proxy;
try {
  await buildOrders(server.url, rows);
  let target = `path = "w.duckdb"`;
  if (targetKind === "postgres") {
    const url = new URL(await createDatabase(server.url, "warehouse"));
    if (latency > 0) {
      proxy = await startLatencyProxy(url.hostname, Number(url.port), latency / 2);
      url.hostname = "127.0.0.1";
      url.port = String(proxy.port);
    }
    target = `connector = "postgres"\nurl = "${url}"`;
  } else if (targetKind === "clickhouse") {
    installClickHouse(dir);
    target = `connector = "clickhouse"\nchdb_path = "engine"`;
  }
  writeFileSync(
    join(dir, "sqlload.toml"),
    `[target]\n${target}\n\n[sources.app]\nconnector = "postgres"\nurl = "${server.url}"\n\n[sources.app.tables."public.orders"]\ncursor_column = "updated_at"\n`,
  );
  const cache = hasFlag("user-cache") ? {} : { SQLLOAD_COMPILE_CACHE: join(dir, "compile-cache") };
  const run = (args) => peakRss(process.execPath, [cli, ...args], dir, cache);
  await run(["load"]); // the first load copies the table; every later one finds it up to date
  if (history > 0) await lengthenRunLog(join(dir, "w.duckdb"), history);
  const noop = [];
  const version = [];
  for (let i = 0; i < repeat; i++) {
    version.push(await run(["--version"]));
    noop.push(await run(["load"]));
  }
  const best = (list, key) => Math.min(...list.map((x) => x[key]));
  const all = (list, key) => list.map((x) => x[key].toFixed(2)).join(" ");
  const away = latency > 0 ? ` ${latency} ms away` : "";
  const caches = hasFlag("user-cache") ? "the machine's compile cache" : "a compile cache the first load wrote";
  console.log(`${describeMachine()}, target ${targetKind}${away}, ${repeat} pairs of runs, ${caches}`);
  for (const [key, name] of [
    ["s", "wall"],
    ["cpuS", "CPU"],
  ]) {
    console.log(`${name}: sqlload --version best ${best(version, key).toFixed(3)} s (all: ${all(version, key)})`);
    console.log(`${name}: no-op incremental load best ${best(noop, key).toFixed(3)} s (all: ${all(noop, key)})`);
    const pairs = noop.map((x, i) => x[key] / version[i][key]).sort((a, b) => a - b);
    const median = pairs[Math.floor(pairs.length / 2)];
    console.log(
      `${name}: ratio ${(best(noop, key) / best(version, key)).toFixed(2)}x (goal: under 2x); median of the pairs' ratios ${median.toFixed(2)}x`,
    );
  }
} finally {
  await proxy?.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

async function lengthenRunLog(file, records) {
  const { DuckDBInstance } = duckdb();
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    await connection.run(
      `INSERT INTO raw._sqlload_runs SELECT seq + k, run_id, table_name, target_name, "at", format_version, body
       FROM raw._sqlload_runs, range(1, ${records + 1}) r(k) WHERE seq = (SELECT max(seq) FROM raw._sqlload_runs)`,
    );
    const count = (await connection.runAndReadAll("SELECT count(*) FROM raw._sqlload_runs")).getRows()[0][0];
    console.log(`the run log holds ${count} records`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
