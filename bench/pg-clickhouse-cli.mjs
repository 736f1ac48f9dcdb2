#!/usr/bin/env node
// Postgres → ClickHouse (chdb, in process) through the built CLI, as a user runs it (`sqlload load`
// with @sqlload/connector-clickhouse installed beside the project), against the sequential bulk path
// measured in the same run: `COPY … TO STDOUT (FORMAT csv)` into a file, then ClickHouse's own
// `INSERT … SELECT FROM file()` into a table made like sqlload's (chdb-insert-file.mjs, a process of
// its own). Reports the CLI's wall time, CPU and peak RSS at the full size and at a fifth of it.
// sqlload's figures are the whole CLI process's (Node's start, loading chdb, the load); the bulk
// path's are the export's (this process) and the insert's from opening the folder, without Node's
// start or loading chdb's library. Neither counts the Postgres server's CPU, the same COPY for both.
//
//   pnpm build && node bench/pg-clickhouse-cli.mjs [--rows 2000000] [--repeat 2] [--quick]

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  arg,
  best,
  buildOrders,
  cli,
  describeMachine,
  exportCsv,
  hasFlag,
  importBuilt,
  installClickHouse,
  peakRss,
  root,
  runs,
  seconds,
} from "./common.mjs";

const quick = hasFlag("quick");
const rows = arg("rows", quick ? 20_000 : 2_000_000);
const repeat = arg("repeat", quick ? 1 : 2);
const small = Math.max(1, Math.floor(rows / 5));
const TABLE = "raw.app__orders";

const { startPostgres } = await importBuilt("packages/testing/dist/index.js");

/** A project whose node_modules holds the built ClickHouse connector, as `npm i -D` would put it. */
function project(url, table) {
  const dir = mkdtempSync(join(tmpdir(), "sqlload-bench-clickhouse-cli-"));
  installClickHouse(dir);
  writeFileSync(
    join(dir, "sqlload.toml"),
    `[target]\nconnector = "clickhouse"\nchdb_path = "engine"\n\n[sources.app]\nconnector = "postgres"\nurl = "${url}"\n\n` +
      `[sources.app.tables."public.${table}"]\ncursor_column = "updated_at"\n`,
  );
  return dir;
}

/** `sqlload load` of `table` into a new chdb folder, then (when `csv` is given) chdb's own insert of the CSV beside it. */
async function round(url, table, csv) {
  const dir = project(url, table);
  try {
    const load = await peakRss(process.execPath, [cli, "load"], dir);
    if (!csv) return { load };
    const insert = await peakRss(
      process.execPath,
      [join(root, "bench", "chdb-insert-file.mjs"), csv, join(dir, "engine"), TABLE],
      dir,
    );
    const own = JSON.parse(insert.out.trim().split("\n").pop());
    if (own.rows !== rows) throw new Error(`chdb's insert holds ${own.rows} rows, not ${rows}`);
    return { load, insert: { ...own, rssMB: insert.rssMB } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const server = await startPostgres();
const scratch = mkdtempSync(join(tmpdir(), "sqlload-bench-clickhouse-csv-"));
try {
  const url = server.url;
  await buildOrders(url, rows, { small });
  const bulk = [];
  const loads = [];
  for (let i = 0; i < repeat; i++) {
    const csv = join(scratch, `orders-${i}.csv`);
    const exported = await exportCsv(url, "orders", csv);
    const { load, insert } = await round(url, "orders", csv);
    rmSync(csv, { force: true });
    loads.push(load);
    bulk.push({ s: exported.s + insert.s, cpuS: exported.cpuS + insert.cpuS, rssMB: insert.rssMB });
  }
  const smallRun = (await round(url, "orders_small")).load;
  const base = best(bulk).s;
  const full = best(loads);
  console.log(describeMachine());
  console.log(`${rows.toLocaleString("en")} rows of orders(id, customer_id, amount numeric(12,2), status, updated_at)`);
  console.log(
    `sequential bulk path (COPY csv to a file, chdb's INSERT … SELECT FROM file()): ${seconds(base)}, CPU ${best(bulk).cpuS.toFixed(2)} s, ` +
      `chdb's peak RSS ${best(bulk).rssMB.toFixed(0)} MB${runs(bulk)}`,
  );
  console.log(
    `sqlload load (Postgres → ClickHouse): ${seconds(full.s)} = ${(full.s / base).toFixed(2)}x the bulk path, CPU ${full.cpuS.toFixed(2)} s, ` +
      `peak RSS ${full.rssMB.toFixed(0)} MB${runs(loads)}`,
  );
  console.log(
    `peak RSS ${small.toLocaleString("en")} rows ${smallRun.rssMB.toFixed(0)} MB, ${rows.toLocaleString("en")} rows ${full.rssMB.toFixed(0)} MB`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
  await server.stop();
}
