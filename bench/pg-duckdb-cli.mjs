#!/usr/bin/env node
// Postgres → DuckDB through the built CLI, as a user runs it (`sqlload load`), against the sequential
// bulk path measured in the same run: `COPY … TO STDOUT (FORMAT csv)` into a file, then DuckDB's
// `COPY FROM` (issue 15). Measures the default load and the windowed one (`batch_size = "7d"`), and
// the peak RSS of the CLI process at the full size and at a fifth of it. CPU times are those of the
// loading processes (this one for the bulk path, with DuckDB's threads; the CLI for sqlload), not of
// the Postgres server, which does the same COPY TO work for both.
//
//   pnpm build && node bench/pg-duckdb-cli.mjs [--rows 5000000] [--repeat 2] [--no-windowed] [--cpu-prof DIR] [--wide]
//                                             [--memory-limit SIZE] [--row-group-size N] [--merge] [--quick]
//
// `--cpu-prof DIR` runs the CLI under `node --cpu-prof` and leaves the profiles in DIR; `--wide` pads
// each row to about 1 KB, to see that memory does not grow with the row width; `--memory-limit`
// and `--row-group-size` set the DuckDB target's `memory_limit` and `row_group_size`; `--merge` loads
// with `write_strategy = "merge"` on `id` (into an empty table: every key is new). DuckDB's `COPY FROM` runs in a child process of its own
// (duckdb-copy-from.mjs), so its peak RSS is printed beside sqlload's: DuckDB's own tool's memory
// on the same rows.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
  peakRss,
  root,
  runs,
  seconds,
} from "./common.mjs";

const quick = hasFlag("quick");
const rows = arg("rows", quick ? 20_000 : 5_000_000);
const repeat = arg("repeat", quick ? 1 : 2);
const small = Math.max(1, Math.floor(rows / 5));
const flagValue = (flag) => (process.argv.includes(flag) ? process.argv[process.argv.indexOf(flag) + 1] : undefined);
const profileDir = flagValue("--cpu-prof");
const memoryLimit = flagValue("--memory-limit");
const rowGroupSize = flagValue("--row-group-size");
const strategy = hasFlag("merge") ? 'write_strategy = "merge"\nprimary_key = ["id"]\n' : "";
const targetSettings =
  (memoryLimit ? `memory_limit = "${memoryLimit}"\n` : "") + (rowGroupSize ? `row_group_size = ${Number(rowGroupSize)}\n` : "");

const { startPostgres } = await importBuilt("packages/testing/dist/index.js");

/** `sqlload load` in a project of its own; returns seconds and the child's peak RSS in MB. */
async function cliLoad(url, table, extra) {
  const dir = mkdtempSync(join(tmpdir(), "sqlload-bench-cli-"));
  writeFileSync(
    join(dir, "sqlload.toml"),
    `[target]\npath = "w.duckdb"\n${targetSettings}\n[sources.app]\nconnector = "postgres"\nurl = "${url}"\n\n` +
      `[sources.app.tables."public.${table}"]\ncursor_column = "updated_at"\n${extra}`,
  );
  const node = profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [];
  try {
    return await peakRss(process.execPath, [...node, cli, "load"], dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function bulkPath(url, table) {
  const dir = mkdtempSync(join(tmpdir(), "sqlload-bench-bulk-"));
  const csv = join(dir, "orders.csv");
  try {
    const exported = await exportCsv(url, table, csv);
    const copy = await peakRss(process.execPath, [join(root, "bench", "duckdb-copy-from.mjs"), csv, join(dir, "b.duckdb")], dir);
    // The child's own figures for the COPY, without the start of its Node process.
    const own = JSON.parse(copy.out.trim());
    return { s: exported.s + own.s, cpuS: exported.cpuS + own.cpuS, rssMB: copy.rssMB };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (profileDir) mkdirSync(profileDir, { recursive: true });
const server = await startPostgres();
try {
  const url = server.url;
  await buildOrders(url, rows, { small, wide: hasFlag("wide") });
  const bulk = [];
  const plain = [];
  const windowed = [];
  for (let i = 0; i < repeat; i++) {
    bulk.push(await bulkPath(url, "orders"));
    plain.push(await cliLoad(url, "orders", strategy));
    if (!hasFlag("no-windowed"))
      windowed.push(await cliLoad(url, "orders", `${strategy}batch_size = "7d"\ncursor_start = "2026-01-01"\n`));
  }
  const smallRun = await cliLoad(url, "orders_small", strategy);
  const base = best(bulk).s;
  console.log(describeMachine());
  console.log(
    `${rows.toLocaleString("en")} rows of orders(id, customer_id, amount numeric(12,2), status, updated_at)${hasFlag("wide") ? ", status about 1 KB" : ""}` +
      (targetSettings ? `; target: ${targetSettings.trim().replaceAll("\n", ", ")}` : "") +
      (strategy ? '; write_strategy = "merge" on id' : ""),
  );
  console.log(
    `sequential bulk path (psql-style COPY csv to a file, DuckDB COPY FROM): ${seconds(base)}, CPU ${best(bulk).cpuS.toFixed(2)} s, ` +
      `DuckDB COPY FROM's peak RSS ${best(bulk).rssMB.toFixed(0)} MB${runs(bulk)}`,
  );
  const report = (name, list, goal) => {
    const b = best(list);
    console.log(
      `${name}: ${seconds(b.s)} = ${(b.s / base).toFixed(2)}x the bulk path (goal ${goal}), CPU ${b.cpuS.toFixed(2)} s, peak RSS ${b.rssMB.toFixed(0)} MB${runs(list)}`,
    );
  };
  report("sqlload load", plain, strategy ? "none for merge" : "<= 1.0x");
  if (windowed.length > 0) report('sqlload load, batch_size = "7d"', windowed, strategy ? "none for merge" : "<= 1.2x");
  const full = best(plain);
  console.log(
    `peak RSS ${small.toLocaleString("en")} rows ${smallRun.rssMB.toFixed(0)} MB, ${rows.toLocaleString("en")} rows ${full.rssMB.toFixed(0)} MB ` +
      `(${(((full.rssMB - smallRun.rssMB) / smallRun.rssMB) * 100).toFixed(0)}%; goal within 15%, under 300 MB)`,
  );
} finally {
  await server.stop();
}
