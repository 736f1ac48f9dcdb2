#!/usr/bin/env node
// Postgres throughput of sqlload's Postgres connector, against the engines' own bulk paths measured
// in the same run (issue 4): Postgres→Postgres (append, delete_insert) against a binary
// `COPY TO | COPY FROM` pipe and against pgloader; Postgres→DuckDB against `COPY … (FORMAT csv)`
// into a file loaded by DuckDB's `COPY FROM`; peak RSS at 1M and 5M rows.
//
//   pnpm --filter @sqlload/core --filter @sqlload/testing --filter @sqlload/connector-postgres \
//        --filter @sqlload/connector-duckdb build
//   node bench/pg-throughput.mjs [--rows 5000000] [--small 1000000] [--repeat 1] [--no-pgloader] [--no-duckdb] [--memory] [--quick]
//
// `--memory` prints the loads' memory every 500,000 rows.
//
// Each sqlload load runs in a child process of its own so its peak RSS is its own. The connector's
// reader and commit units are driven directly, the way the engine drives them (no CLI).

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { binaryPipe, DDL, expectRows, inNewDatabase, withClient } from "./common.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const requireFrom = (dir) => createRequire(join(root, dir, "package.json"));
const { to: copyTo } = requireFrom("connectors/postgres")("pg-copy-streams");

async function importBuilt(path) {
  try {
    return await import(join(root, path));
  } catch (error) {
    console.error(`cannot load ${path}: build the packages first (see the top of this file)\n${error.message}`);
    process.exit(2);
  }
}

const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
};

// ── The measured sqlload path (child process) ──────────────────────────────────────────────

async function child({ mode, src, dst, table, duckdbPath, memory }) {
  const { default: postgres } = await importBuilt("connectors/postgres/dist/index.js");
  const { parseTableKey } = await importBuilt("packages/core/dist/index.js");
  const started = performance.now();
  const source = await postgres.source({ options: { url: src }, projectDir: root, sourceName: "app" });
  const target =
    mode === "duckdb"
      ? await (await importBuilt("connectors/duckdb/dist/index.js")).default.target({
          options: { path: duckdbPath },
          projectDir: root,
          schema: "raw",
        })
      : await postgres.target({ options: { url: dst }, projectDir: root, schema: "raw" });
  const request = { table: parseTableKey(`public.${table}`), cursorColumn: "updated_at", options: {} };
  const info = await source.describeTable(request);
  const ref = { schema: "raw", name: `app__${table}` };
  const columns = await target.ensureTable(ref, info.columns, {});
  const reader = await source.openTable(request, info);
  const ordered = mode === "delete_insert";
  const strategy = mode === "delete_insert" ? "delete_insert" : "append";
  const cursor = { column: "updated_at", kind: "timestamp" };
  let unit = await target.begin(ref, { strategy, columns, cursor });
  if (ordered) await unit.deleteRange({}, { includeNulls: true });
  let rows = 0;
  let bytes = 0;
  let commits = 0;
  const signal = new AbortController().signal;
  // As the engine does for an indexed Postgres cursor without batch_size: commit about every 1 GB,
  // only at the commit points an ordered read yields.
  for await (const item of reader.read({ range: {}, includeNulls: true, ordered, signal })) {
    if (item.kind === "batch") {
      if (memory && Math.floor((rows + item.batch.length) / 500_000) > Math.floor(rows / 500_000)) {
        const m = process.memoryUsage();
        const mb = (x) => (x / 2 ** 20).toFixed(0);
        console.error(
          `${rows + item.batch.length} rows: rss ${mb(m.rss)} heap ${mb(m.heapUsed)}/${mb(m.heapTotal)} external ${mb(m.external)} buffers ${mb(m.arrayBuffers)} MB`,
        );
      }
      rows += item.batch.length;
      await unit.write(item.batch);
    } else if (item.kind === "commit-point") {
      bytes += item.bytesSinceLast ?? 0;
      if (bytes >= 1 << 30) {
        await unit.commit();
        commits++;
        bytes = 0;
        unit = await target.begin(ref, { strategy, columns, cursor });
      }
    }
  }
  await unit.commit();
  commits++;
  await reader.close();
  await source.close();
  await target.close();
  const ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ ms, rows, commits, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`);
}

function runChild(spec) {
  return new Promise((resolve, reject) => {
    const full = { ...spec, memory: argv.includes("--memory") };
    const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), "--child", JSON.stringify(full)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    proc.stdout.on("data", (d) => {
      out += d;
    });
    proc.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split("\n").at(-1))) : reject(new Error(`child ${code}`)),
    );
  });
}

// ── Baselines and orchestration ────────────────────────────────────────────────────────────

async function timed(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function pgloader(srcUrl, dstUrl, table) {
  const dir = mkdtempSync(join(tmpdir(), "sqlload-pgloader-"));
  const file = join(dir, "load.load");
  writeFileSync(
    file,
    `LOAD DATABASE FROM ${srcUrl.replace("postgresql://", "pgsql://")} INTO ${dstUrl.replace("postgresql://", "pgsql://")}
 WITH include drop, create tables, create indexes, reset sequences, workers = 2, concurrency = 1, batch rows = 25000
 INCLUDING ONLY TABLE NAMES MATCHING '${table}' IN SCHEMA 'public';\n`,
  );
  try {
    return await timed(
      () =>
        new Promise((resolve, reject) => {
          // SBCL's default heap is exhausted by a few million rows; 4 GB lets pgloader finish.
          const proc = spawn("pgloader", ["--dynamic-space-size", "4096", "--root-dir", dir, file], {
            stdio: ["ignore", "ignore", "pipe"],
          });
          let err = "";
          proc.stderr.on("data", (d) => {
            err += d;
          });
          proc.on("error", reject);
          proc.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`pgloader exited ${code}: ${err.slice(-2000)}`))));
        }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function duckdbBaseline(src, table, dir) {
  const { DuckDBInstance } = requireFrom("connectors/duckdb")("@duckdb/node-api");
  const csv = join(dir, `${table}.csv`);
  const dbPath = join(dir, "baseline.duckdb");
  return timed(async () => {
    const { createWriteStream } = await import("node:fs");
    await withClient(src, (c) => pipeline(c.query(copyTo(`COPY ${table} TO STDOUT (FORMAT csv)`)), createWriteStream(csv)));
    const instance = await DuckDBInstance.create(dbPath, {
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
    });
    const connection = await instance.connect();
    await connection.run(
      `CREATE TABLE orders (id BIGINT, customer_id BIGINT, amount DECIMAL(12,2), status VARCHAR, updated_at TIMESTAMPTZ)`,
    );
    await connection.run(`COPY orders FROM '${csv}' (FORMAT csv)`);
    connection.closeSync?.();
    instance.closeSync?.();
  });
}

function ratio(a, b) {
  return `${(a / b).toFixed(2)}x`;
}

async function main() {
  const quick = argv.includes("--quick");
  const rows = Number(flag("rows", quick ? 20_000 : 5_000_000));
  const small = Number(flag("small", quick ? 5_000 : 1_000_000));
  const { startPostgres, createDatabase } = await importBuilt("packages/testing/dist/index.js");
  const server = await startPostgres();
  const work = mkdtempSync(join(tmpdir(), "sqlload-bench-"));
  const results = [];
  const log = (line) => {
    console.log(line);
    results.push(line);
  };
  try {
    const src = await createDatabase(server.url, "src");
    console.error(`building ${rows.toLocaleString("en")} rows…`);
    await withClient(src, async (c) => {
      await c.query(`CREATE TABLE orders ${DDL}`);
      await c.query(`INSERT INTO orders
        SELECT g, (g::int8 * 7919) % 100000, round((g % 100000) / 100.0 + 0.01, 2),
               (ARRAY['new','paid','shipped','cancelled'])[1 + g % 4],
               '2026-01-01'::timestamptz + g * interval '1 second' + (g % 1000) * interval '1 microsecond'
        FROM generate_series(1, ${rows}) g`);
      await c.query(`CREATE INDEX ON orders (updated_at)`);
      await c.query(`CREATE TABLE orders_small AS SELECT * FROM orders WHERE id <= ${small}`);
      await c.query("VACUUM ANALYZE orders");
      await c.query("VACUUM ANALYZE orders_small");
    });
    const size = await withClient(src, (c) => c.query("SELECT pg_size_pretty(pg_total_relation_size('orders')) AS s"));
    log(`table: ${rows.toLocaleString("en")} rows, ${size.rows[0].s} (with index)`);

    // Postgres → Postgres. On a shared machine single timings swing by 2x; with --repeat N the
    // pipe and the loads run N times, interleaved, and the best of each is compared.
    const repeat = Number(flag("repeat", 1));
    let n = 0;
    const inFresh = (run) => inNewDatabase(server.url, `dst_${n++}`, run);
    /** A load's report, once it says it moved every row. */
    const moved = (expected) => (report) => {
      if (report.rows !== expected) throw new Error(`a load moved ${report.rows} rows, expected ${expected}`);
      return report;
    };
    const pipes = [];
    const appends = [];
    const deletes = [];
    for (let i = 0; i < repeat; i++) {
      // binaryPipe gives seconds; this script counts in milliseconds.
      pipes.push(
        await inFresh(async (dst) => {
          const s = await binaryPipe(src, dst, "orders", "pipe_orders");
          await expectRows(dst, "pipe_orders", rows);
          return s * 1000;
        }),
      );
      appends.push(await inFresh((dst) => runChild({ mode: "append", src, dst, table: "orders" }).then(moved(rows))));
      deletes.push(await inFresh((dst) => runChild({ mode: "delete_insert", src, dst, table: "orders" }).then(moved(rows))));
    }
    const best = (runs) => runs.reduce((a, b) => (a.ms <= b.ms ? a : b));
    const pipeMs = Math.min(...pipes);
    const append = best(appends);
    const di = best(deletes);
    const all = (xs) => (repeat > 1 ? ` [runs: ${xs.map((x) => ((x.ms ?? x) / 1000).toFixed(2)).join(", ")}]` : "");
    log(`binary COPY TO | COPY FROM pipe: ${(pipeMs / 1000).toFixed(2)} s${all(pipes)}`);
    log(
      `sqlload append: ${(append.ms / 1000).toFixed(2)} s (${ratio(append.ms, pipeMs)} of the pipe), peak RSS ${append.maxRssMB.toFixed(0)} MB${all(appends)}`,
    );
    log(
      `sqlload delete_insert (ordered read, commit points, ${di.commits} commit): ${(di.ms / 1000).toFixed(2)} s (${ratio(di.ms, pipeMs)} of the pipe), peak RSS ${di.maxRssMB.toFixed(0)} MB${all(deletes)}`,
    );

    // Peak memory at a fifth of the rows
    const smallRun = await inFresh((dst) => runChild({ mode: "append", src, dst, table: "orders_small" }).then(moved(small)));
    log(
      `sqlload append of ${small.toLocaleString("en")} rows: ${(smallRun.ms / 1000).toFixed(2)} s, peak RSS ${smallRun.maxRssMB.toFixed(0)} MB ` +
        `(${rows.toLocaleString("en")} rows: ${append.maxRssMB.toFixed(0)} MB, ${(((append.maxRssMB - smallRun.maxRssMB) / smallRun.maxRssMB) * 100).toFixed(0)}% more)`,
    );

    if (!argv.includes("--no-pgloader")) {
      try {
        const loaderMs = await inNewDatabase(server.url, "dst_pgloader", (dst) => pgloader(src, dst, "orders"));
        log(`pgloader: ${(loaderMs / 1000).toFixed(2)} s; sqlload append is ${(loaderMs / append.ms).toFixed(1)}x faster`);
      } catch (error) {
        log(`pgloader: not measured (${error.message.split("\n")[0]})`);
      }
    }

    // Postgres → DuckDB
    if (!argv.includes("--no-duckdb")) {
      try {
        const baseMs = await duckdbBaseline(src, "orders", work);
        log(`COPY … TO STDOUT (FORMAT csv) into a file + DuckDB COPY FROM: ${(baseMs / 1000).toFixed(2)} s`);
        const duck = await runChild({ mode: "duckdb", src, table: "orders", duckdbPath: join(work, "sqlload.duckdb") });
        log(
          `sqlload append into DuckDB: ${(duck.ms / 1000).toFixed(2)} s (${ratio(duck.ms, baseMs)} of the baseline), peak RSS ${duck.maxRssMB.toFixed(0)} MB, file ${(statSync(join(work, "sqlload.duckdb")).size / 2 ** 20).toFixed(0)} MB`,
        );
      } catch (error) {
        log(`Postgres → DuckDB: not measured (${error.message.split("\n")[0]})`);
      }
    }
    console.error(
      `\n${new Date().toISOString().slice(0, 10)}, ${cpus().length}× ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}`,
    );
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (argv[0] === "--child") await child(JSON.parse(argv[1]));
else await main();
