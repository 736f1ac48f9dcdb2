#!/usr/bin/env node
// A folder of Parquet files → DuckDB through the built CLI (`sqlload load`, files source), against
// DuckDB's own `CREATE TABLE … AS SELECT * FROM read_parquet(…)` of the same folder, best of N,
// interleaved (issue 15).
//
//   pnpm build && node bench/files-duckdb.mjs [--rows 5000000] [--files 8] [--repeat 2] [--quick]
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
  writeFileSync(
    join(dir, "sqlload.toml"),
    `[target]\npath = "w.duckdb"\n\n[sources.lake]\nconnector = "files"\npath = "landing"\n\n` +
      `[sources.lake.tables.orders]\nglob = "orders/*.parquet"\ncursor_column = "updated_at"\n`,
  );
  const native = [];
  const sqlload = [];
  for (let i = 0; i < repeat; i++) {
    rmSync(join(dir, "native.duckdb"), { force: true });
    native.push(
      await timed(() =>
        withDuckDB(join(dir, "native.duckdb"), (c) =>
          c.run(`CREATE TABLE orders AS SELECT * FROM read_parquet('${join(folder, "*.parquet")}')`),
        ),
      ),
    );
    rmSync(join(dir, "w.duckdb"), { force: true });
    rmSync(join(dir, "w.duckdb.wal"), { force: true });
    sqlload.push(await peakRss(process.execPath, [cli, "load"], dir));
  }
  const loaded = await withDuckDB(join(dir, "w.duckdb"), async (c) =>
    (await c.runAndReadAll("SELECT count(*)::INTEGER AS n FROM raw.lake__orders")).getRowObjectsJS(),
  );
  if (loaded[0].n !== rows) throw new Error(`sqlload loaded ${loaded[0].n} rows, expected ${rows}`);
  const b = best(sqlload);
  console.log(describeMachine());
  console.log(`${rows.toLocaleString("en")} rows in ${files} Parquet files`);
  console.log(`DuckDB CREATE TABLE AS SELECT * FROM read_parquet: ${seconds(best(native))}${runs(native)}`);
  console.log(
    `sqlload load (files → DuckDB): ${seconds(b)} = ${(b.s / best(native)).toFixed(2)}x read_parquet, peak RSS ${b.rssMB.toFixed(0)} MB${runs(sqlload)}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
