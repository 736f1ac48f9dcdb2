#!/usr/bin/env node
// Where the CPU of a Postgres → Postgres load goes: the connector driven directly in this process
// (read only, `append`, `delete_insert`) against a binary `COPY TO STDOUT | COPY FROM STDIN` pipe,
// each reporting its wall time, this process's CPU time for the data loop, and the Postgres
// servers' CPU time (the postmaster and its children, read from /proc), best of N (issue 15).
// On a shared 2-core machine wall times swing; the CPU split says which side is the floor.
//
//   pnpm build && node bench/pg-postgres-cpu.mjs [--rows 1000000] [--repeat 3] [--quick]
import { join } from "node:path";
import { importSource } from "../scripts/import-source.mjs";
import {
  arg,
  binaryPipe,
  buildOrders,
  describeMachine,
  expectRows,
  hasFlag,
  importBuilt,
  inNewDatabase,
  postmasterOf,
  root,
  serverCpu,
  withClient,
} from "./common.mjs";

const quick = hasFlag("quick");
const rows = arg("rows", quick ? 20_000 : 1_000_000);
const repeat = arg("repeat", quick ? 1 : 3);
const { startPostgres, createDatabase } = await importBuilt("packages/testing/dist/index.js");
const { default: postgres } = await importBuilt("connectors/postgres/dist/index.js");
const { parseTableKey } = await importBuilt("packages/core/dist/index.js");
const { columnMaxCursor } = await importSource(join(root, "packages", "core", "src", "connector", "record-batch.ts"));

async function measured(postmaster, work) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const server = serverCpu(postmaster);
  await work();
  // A backend's CPU counts once the postmaster has reaped it.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const used = process.cpuUsage(cpu);
  return {
    s: (performance.now() - started) / 1000 - 0.3,
    cpu: (used.user + used.system) / 1e6,
    server: serverCpu(postmaster) - server,
  };
}

async function load(src, dst, mode) {
  const source = await postgres.source({ options: { url: src }, projectDir: root, sourceName: "app" });
  const target = await postgres.target({ options: { url: dst }, projectDir: root, schema: "raw" });
  try {
    const request = { table: parseTableKey("public.orders"), cursorColumn: "updated_at", options: {} };
    const info = await source.describeTable(request);
    const ref = { schema: "raw", name: "app__orders" };
    const columns = await target.ensureTable(ref, info.columns, {});
    const reader = await source.openTable(request, info);
    const ordered = mode === "delete_insert";
    const cursorIndex = info.columns.findIndex((c) => c.name === "updated_at");
    let got = 0;
    const run = async () => {
      const unit =
        mode === "read"
          ? undefined
          : await target.begin(ref, { strategy: mode, columns, cursor: { column: "updated_at", kind: "timestamp" } });
      const signal = new AbortController().signal;
      for await (const item of reader.read({ range: {}, includeNulls: true, ordered, signal })) {
        if (item.kind !== "batch") continue;
        got += item.batch.length;
        columnMaxCursor(item.batch, cursorIndex); // what the engine reads of every batch
        if (unit) await unit.write(item.batch);
      }
      await unit?.commit();
    };
    const close = async () => {
      await reader.close();
      await source.close();
      await target.close();
    };
    return { run, check: () => got === rows, close };
  } catch (error) {
    await source.close();
    await target.close();
    throw error;
  }
}

const server = await startPostgres();
try {
  const src = await createDatabase(server.url, "src");
  await buildOrders(src, rows);
  // Autovacuum of an earlier run's table would count against the next one.
  await withClient(server.url, async (c) => {
    await c.query("ALTER SYSTEM SET autovacuum = off");
    await c.query("SELECT pg_reload_conf()");
  });
  const postmaster = postmasterOf(server);
  let n = 0;
  const results = { pipe: [], read: [], append: [], delete_insert: [] };
  for (let i = 0; i < repeat; i++) {
    await inNewDatabase(server.url, `dst_${n++}`, async (dst) => {
      results.pipe.push(await measured(postmaster, () => binaryPipe(src, dst)));
      await expectRows(dst, "orders", rows);
    });
    for (const mode of ["read", "append", "delete_insert"]) {
      await inNewDatabase(server.url, `dst_${n++}`, async (dst) => {
        const job = await load(src, dst, mode);
        try {
          results[mode].push(await measured(postmaster, job.run));
        } finally {
          await job.close();
        }
        if (!job.check()) throw new Error(`${mode} moved the wrong number of rows`);
      });
    }
  }
  console.log(describeMachine());
  console.log(`${rows.toLocaleString("en")} rows of orders; best of ${repeat} (all runs in brackets)`);
  const min = (list, key) => Math.min(...list.map((r) => r[key])).toFixed(2);
  const all = (list, key) => (list.length > 1 ? ` [${list.map((r) => r[key].toFixed(2)).join(", ")}]` : "");
  for (const [name, list] of Object.entries(results)) {
    console.log(
      `${name.padEnd(14)} wall ${min(list, "s")} s${all(list, "s")}, Node CPU ${min(list, "cpu")} s${all(list, "cpu")}, ` +
        `servers' CPU ${min(list, "server")} s${all(list, "server")}`,
    );
  }
} finally {
  await server.stop();
}
