#!/usr/bin/env node
// Postgres → Postgres through the built CLI (`sqlload load`, as a user runs it), `append` and
// `delete_insert`, against a binary `COPY … TO STDOUT | COPY … FROM STDIN` pipe between the same
// two servers' databases, and the same copy between two `psql` processes (the issue's own baseline),
// best of N, interleaved (issue 15). bench/pg-throughput.mjs measures the
// connector driven directly, and pgloader; this measures what a user pays, start-up included.
//
//   pnpm build && node bench/pg-postgres-cli.mjs [--rows 5000000] [--repeat 5] [--cpu-prof DIR] [--wide] [--quick]
//
// `--cpu-prof DIR` runs the CLI under `node --cpu-prof` and leaves the profiles in DIR; `--wide` pads
// each row to about 1 KB, to see that memory does not grow with the row width.
//
// Every run also reports the Postgres server's CPU (both databases live on one server): on 2 cores
// the source backend, the target backend and Node share the machine, so the sum of the three, not
// Node's alone, is what a load costs; the pipe is already at that limit. The same pipe reading in
// cursor order, as sqlload reads a table whose cursor leads an index (SPEC §6), says how much of the
// difference is the ordered read alone.
//
// `delete_insert` is also run windowed (`batch_size = "1d"` from the first row's day: 58 windows of
// the 5M rows, one commit each), as a backfill runs: the target table has no index on the cursor, so
// each window's delete would scan it whole; only the windows the table may hold rows in delete.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  arg,
  best,
  binaryPipe,
  buildOrders,
  cli,
  describeMachine,
  expectRows,
  hasFlag,
  importBuilt,
  inNewDatabase,
  peakRss,
  postmasterOf,
  psqlPipe,
  root,
  runs,
  seconds,
  serverCpu,
  withClient,
} from "./common.mjs";

const quick = hasFlag("quick");
const rows = arg("rows", quick ? 20_000 : 5_000_000);
const repeat = arg("repeat", quick ? 1 : 5);
const profileDir = process.argv.includes("--cpu-prof") ? process.argv[process.argv.indexOf("--cpu-prof") + 1] : undefined;
const { startPostgres, createDatabase } = await importBuilt("packages/testing/dist/index.js");

async function cliLoad(src, dst, strategy, settings = "") {
  const dir = mkdtempSync(join(tmpdir(), "sqlload-bench-pgpg-"));
  writeFileSync(
    join(dir, "sqlload.toml"),
    `[target]\nconnector = "postgres"\nurl = "${dst}"\nschema = "raw"\n\n[sources.app]\nconnector = "postgres"\nurl = "${src}"\n\n` +
      `[sources.app.tables."public.orders"]\ncursor_column = "updated_at"\nwrite_strategy = "${strategy}"\n${settings}`,
  );
  try {
    const node = profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [];
    return await peakRss(process.execPath, [...node, cli, "load"], dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const server = await startPostgres();
const postmaster = postmasterOf(server);

/**
 * `work`'s result with the server's CPU seconds during it (its backends reaped: hence the pause).
 * Each run is in a new database (`inNewDatabase`), which settles the machine first: a checkpoint, so
 * no run pays for the WAL of the one before (each load writes about as much WAL as its data, and
 * `max_wal_size` is 1 GB), and the OS's dirty pages written out.
 */
async function withServers(work) {
  const before = serverCpu(postmaster);
  const result = await work();
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { ...result, serversS: serverCpu(postmaster) - before };
}

const cpuText = (r) => `CPU ${r.cpuS.toFixed(2)} s + servers' ${r.serversS.toFixed(2)} s = ${(r.cpuS + r.serversS).toFixed(2)} s`;

try {
  const src = await createDatabase(server.url, "src");
  await buildOrders(src, rows, { wide: hasFlag("wide") });
  // Autovacuum of an earlier run's table would count against the next one.
  await withClient(server.url, async (c) => {
    await c.query("ALTER SYSTEM SET autovacuum = off");
    await c.query("SELECT pg_reload_conf()");
  });
  let n = 0;
  /** A new target database for one run, checked to hold every row. */
  const inFresh = (table, work) =>
    inNewDatabase(server.url, `dst_${n++}`, async (dst) => {
      const result = await work(dst);
      // Outside the measured run, whose server CPU a count would add to.
      await expectRows(dst, table, rows);
      return result;
    });
  const pipeRun = (options) => async (dst) => {
    const cpu = process.cpuUsage();
    const s = await binaryPipe(src, dst, "orders", "orders", options);
    const used = process.cpuUsage(cpu);
    return { s, cpuS: (used.user + used.system) / 1e6 };
  };
  const pipes = [];
  const psqlPipes = [];
  const orderedPipes = [];
  const starts = [];
  const appends = [];
  const deletes = [];
  const windowed = [];
  const variants = [
    async () => pipes.push(await inFresh("orders", (dst) => withServers(() => pipeRun()(dst)))),
    async () => {
      const run = await inFresh("orders", (dst) => withServers(async () => ({ s: await psqlPipe(src, dst) })));
      if (run.s !== undefined) psqlPipes.push(run);
    },
    async () => orderedPipes.push(await inFresh("orders", (dst) => withServers(() => pipeRun({ orderBy: "updated_at" })(dst)))),
    async () => appends.push(await inFresh("raw.app__orders", (dst) => withServers(() => cliLoad(src, dst, "append")))),
    async () => deletes.push(await inFresh("raw.app__orders", (dst) => withServers(() => cliLoad(src, dst, "delete_insert")))),
    async () =>
      windowed.push(
        await inFresh("raw.app__orders", (dst) =>
          withServers(() => cliLoad(src, dst, "delete_insert", `batch_size = "1d"\ncursor_start = "2026-01-01T00:00:00Z"\n`)),
        ),
      ),
  ];
  for (let i = 0; i < repeat; i++) {
    starts.push(await peakRss(process.execPath, [cli, "--version"], root));
    // Each round starts with another of them, so none always runs first.
    for (let k = 0; k < variants.length; k++) await variants[(i + k) % variants.length]();
  }
  const pipe = best(pipes);
  const start = best(starts);
  console.log(describeMachine());
  console.log(`${rows.toLocaleString("en")} rows of orders${hasFlag("wide") ? ", status about 1 KB" : ""}`);
  const allCpu = (r) => r.cpuS + r.serversS;
  const sums = (list) => (list.length > 1 ? ` [CPU sums: ${list.map((r) => allCpu(r).toFixed(2)).join(", ")}]` : "");
  const pipeCpu = Math.min(...pipes.map(allCpu));
  console.log(
    `binary COPY TO STDOUT | COPY FROM STDIN pipe: ${seconds(pipe)}, Node ${cpuText(pipe)}${runs(pipes)}${sums(pipes)}`,
  );
  const psql = psqlPipes.length > 0 ? best(psqlPipes) : undefined;
  console.log(
    psql
      ? `the same between two psql processes (psql | psql): ${seconds(psql)} = ${(psql.s / pipe.s).toFixed(2)}x the pipe, servers' CPU ${psql.serversS.toFixed(2)} s${runs(psqlPipes)}`
      : "psql | psql: psql is not installed",
  );
  const inOrder = best(orderedPipes);
  console.log(
    `the same pipe reading in cursor order: ${seconds(inOrder)} = ${(inOrder.s / pipe.s).toFixed(2)}x the pipe, Node ${cpuText(inOrder)}${runs(orderedPipes)}${sums(orderedPipes)}`,
  );
  console.log(`sqlload --version (start-up alone): ${seconds(start)}, CPU ${start.cpuS.toFixed(2)} s${runs(starts)}`);
  for (const [name, list, goal] of [
    ["append", appends, " (goal <= 1.1x)"],
    ["delete_insert", deletes, " (goal <= 1.1x)"],
    ['delete_insert, batch_size = "1d"', windowed, ""],
  ]) {
    const b = best(list);
    console.log(
      `sqlload load, ${name}: ${seconds(b)} = ${(b.s / pipe.s).toFixed(2)}x the pipe${goal}, ` +
        `${((b.s - start.s) / pipe.s).toFixed(2)}x without start-up, ` +
        (psql ? `${(b.s / psql.s).toFixed(2)}x psql | psql, ` : "") +
        `${cpuText(b)} ` +
        `(least CPU sum ${Math.min(...list.map(allCpu)).toFixed(2)} s = ${(Math.min(...list.map(allCpu)) / pipeCpu).toFixed(2)}x the pipe's least), ` +
        `peak RSS ${b.rssMB.toFixed(0)} MB${runs(list)}${sums(list)}`,
    );
  }
} finally {
  await server.stop();
}
