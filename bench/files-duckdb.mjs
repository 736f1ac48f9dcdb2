#!/usr/bin/env node
// A folder of Parquet files → DuckDB through the built CLI (`sqlload load`, files source), against
// DuckDB's own `CREATE TABLE … AS SELECT * FROM read_parquet(…)` of the same folder, best of N,
// interleaved (issue 15). sqlload runs twice per round: on the native path (the DuckDB target reads
// the files itself, the default) and on the row path (`native_file_reads = false`). CPU times are
// the loading process's own (with DuckDB's threads), wall times swing on a shared machine.
//
//   pnpm build && node bench/files-duckdb.mjs [--rows 5000000] [--files 8] [--repeat 2] [--no-row-path] [--quick]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg, best, cli, describeMachine, hasFlag, peakRss, runs, seconds, timed, withDuckDB } from "./common.mjs";

const quick = hasFlag("quick");
const rows = arg("rows", quick ? 20_000 : 5_000_000);
const files = arg("files", quick ? 2 : 8);
const repeat = arg("repeat", quick ? 1 : 2);
const dir = mkdtempSync(join(tmpdir(), "sqlload-bench-files-"));
try {
  const folder = join(dir, "landing", "orders");
  mkdirSync(folder, { recursive: true });
  await withDuckDB(":memory:", async (c) => {
    const per = Math.ceil(rows / files);
    for (let f = 0; f < files; f++) {
      await c.run(`COPY (
        SELECT g AS id, (g * 7919) % 100000 AS customer_id, round((g % 100000) / 100.0 + 0.01, 2)::DECIMAL(12,2) AS amount,
               (['new','paid','shipped','cancelled'])[1 + g % 4] AS status,
               TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(g) + to_microseconds(g % 1000) AS updated_at
        FROM range(${f * per + 1}, ${Math.min(rows, (f + 1) * per) + 1}) t(g)
      ) TO '${join(folder, `part-${f}.parquet`)}' (FORMAT parquet)`);
    }
  });
  const toml = (extra) =>
    `[target]\npath = "w.duckdb"\n${extra}\n[sources.lake]\nconnector = "files"\npath = "landing"\n\n` +
    `[sources.lake.tables.orders]\nglob = "orders/*.parquet"\ncursor_column = "updated_at"\n`;
  const native = [];
  const sqlload = [];
  const rowPath = [];
  const fresh = () => {
    rmSync(join(dir, "w.duckdb"), { force: true });
    rmSync(join(dir, "w.duckdb.wal"), { force: true });
  };
  for (let i = 0; i < repeat; i++) {
    rmSync(join(dir, "native.duckdb"), { force: true });
    const cpu = process.cpuUsage();
    const s = await timed(() =>
      withDuckDB(join(dir, "native.duckdb"), (c) =>
        c.run(`CREATE TABLE orders AS SELECT * FROM read_parquet('${join(folder, "*.parquet")}')`),
      ),
    );
    const used = process.cpuUsage(cpu);
    native.push({ s, cpuS: (used.user + used.system) / 1e6 });
    if (!hasFlag("no-row-path")) {
      fresh();
      writeFileSync(join(dir, "sqlload.toml"), toml("native_file_reads = false\n"));
      rowPath.push(await peakRss(process.execPath, [cli, "load"], dir));
    }
    fresh();
    writeFileSync(join(dir, "sqlload.toml"), toml(""));
    sqlload.push(await peakRss(process.execPath, [cli, "load"], dir));
  }
  const loaded = await withDuckDB(join(dir, "w.duckdb"), async (c) =>
    (await c.runAndReadAll("SELECT count(*)::INTEGER AS n FROM raw.lake__orders")).getRowObjectsJS(),
  );
  if (loaded[0].n !== rows) throw new Error(`sqlload loaded ${loaded[0].n} rows, expected ${rows}`);
  const base = best(native);
  console.log(describeMachine());
  console.log(`${rows.toLocaleString("en")} rows in ${files} Parquet files`);
  console.log(
    `DuckDB CREATE TABLE AS SELECT * FROM read_parquet: ${seconds(base)}, CPU ${base.cpuS.toFixed(2)} s${runs(native)}`,
  );
  const report = (name, list) => {
    const b = best(list);
    console.log(
      `${name}: ${seconds(b)} = ${(b.s / base.s).toFixed(2)}x read_parquet, CPU ${b.cpuS.toFixed(2)} s = ${(b.cpuS / base.cpuS).toFixed(2)}x, peak RSS ${b.rssMB.toFixed(0)} MB${runs(list)}`,
    );
  };
  report("sqlload load (files → DuckDB, native path)", sqlload);
  if (rowPath.length > 0) report("sqlload load (files → DuckDB, row path)", rowPath);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
