#!/usr/bin/env node
// Every benchmark in this folder, one after another. `--quick` runs each at a small size (a try-out
// in under a minute on a quiet machine; its figures are dominated by start-up and mean little);
// without it each runs at its full size, which takes a while. Other arguments are passed on.
//
//   pnpm build && node bench/all.mjs --quick
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Each benchmark, what its quick run passes to it, and the line that says it measured its figure. */
export const BENCHMARKS = [
  { file: "pg-duckdb-cli.mjs", quick: ["--quick"], reports: /^sqlload load: .* = [\d.]+x the bulk path/m },
  { file: "pg-postgres-cli.mjs", quick: ["--quick"], reports: /^sqlload load, delete_insert: .* = [\d.]+x the pipe/m },
  { file: "pg-postgres-cpu.mjs", quick: ["--quick"], reports: /^delete_insert +wall [\d.]+ s.*servers' CPU [\d.]+ s/m },
  { file: "pg-throughput.mjs", quick: ["--quick", "--no-pgloader"], reports: /^sqlload append: .*\([\d.]+x of the pipe\)/m },
  { file: "noop-run.mjs", quick: ["--quick"], reports: /^CPU: ratio [\d.]+x/m },
  {
    file: "files-duckdb.mjs",
    quick: ["--quick", "--no-row-path"],
    reports: /^sqlload load \(files → DuckDB, native path\): .* = [\d.]+x read_parquet/m,
  },
  {
    file: "duckdb-postgres.mjs",
    quick: ["--quick"],
    reports: /^sqlload load \(DuckDB → Postgres\): .* = [\d.]+x the bulk path/m,
  },
  { file: "clickhouse-insert.mjs", quick: ["--quick"], reports: /^sqlload's insert is [\d.]+x ClickHouse's own file\(\) load/m },
  {
    file: "pg-clickhouse-cli.mjs",
    quick: ["--quick"],
    reports: /^sqlload load \(Postgres → ClickHouse\): .* = [\d.]+x the bulk path/m,
  },
  {
    file: "typescript-source.mjs",
    quick: ["--quick"],
    reports: /^sqlload load \(TypeScript source → DuckDB\): .* [\d,]+ rows\/s/m,
  },
  { file: "scale-out.mjs", quick: ["--quick"], reports: /^ratio [\d.]+x \(3 workers/m },
];

const here = fileURLToPath(new URL(".", import.meta.url));
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const passed = args.filter((a) => a !== "--quick");
  let failed = 0;
  const started = performance.now();
  for (const { file, quick: quickArgs } of BENCHMARKS) {
    console.log(`\n## ${file}`);
    const t = performance.now();
    const run = spawnSync(process.execPath, [join(here, file), ...(quick ? quickArgs : []), ...passed], { stdio: "inherit" });
    console.log(`(${file}: ${((performance.now() - t) / 1000).toFixed(1)} s${run.status === 0 ? "" : `, exit ${run.status}`})`);
    if (run.status !== 0) failed++;
  }
  console.log(
    `\n${BENCHMARKS.length - failed} of ${BENCHMARKS.length} benchmarks ran in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  process.exit(failed === 0 ? 0 : 1);
}
