#!/usr/bin/env node
// DuckDB → Postgres through the built CLI (`sqlload load`, DuckDB source, Postgres target), against
// the sequential bulk path measured in the same run: DuckDB's `COPY … TO` a CSV file, then
// Postgres `COPY … FROM STDIN (FORMAT csv)` of that file; best of N, interleaved (issue 15).
//
//   pnpm build && node bench/duckdb-postgres.mjs [--rows 5000000] [--repeat 2] [--text-bytes N] [--quick]
//
// `--text-bytes N` pads each status to about N bytes: rows of long text, which DuckDB keeps apart
// from its row groups from 4 KB on and the source reads in pages of rowids (issue 15's memory goal).
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import {
  arg,
  best,
  cli,
  copyFrom,
  DDL,
  describeMachine,
  expectRows,
  hasFlag,
  importBuilt,
  inNewDatabase,
  peakRss,
  runs,
  seconds,
  timed,
  withClient,
  withDuckDB,
} from "./common.mjs";

const quick = hasFlag("quick");
const rows = arg("rows", quick ? 20_000 : 5_000_000);
const repeat = arg("repeat", quick ? 1 : 2);
const textBytes = arg("text-bytes", 0);
const pad = textBytes > 0 ? ` || repeat(md5(g::VARCHAR), ${Math.ceil(textBytes / 32)})` : "";
const { startPostgres } = await importBuilt("packages/testing/dist/index.js");

const dir = mkdtempSync(join(tmpdir(), "sqlload-bench-duckpg-"));
const server = await startPostgres();
try {
  await withDuckDB(join(dir, "src.duckdb"), (c) =>
    c.run(`CREATE TABLE orders AS
      SELECT g::BIGINT AS id, ((g * 7919) % 100000)::BIGINT AS customer_id, round((g % 100000) / 100.0 + 0.01, 2)::DECIMAL(12,2) AS amount,
             (['new','paid','shipped','cancelled'])[1 + g % 4]${pad} AS status,
             TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(g) + to_microseconds(g % 1000) AS updated_at
      FROM range(1, ${rows + 1}) t(g)`),
  );
  let n = 0;
  const bulk = [];
  const sqlload = [];
  for (let i = 0; i < repeat; i++) {
    const csv = join(dir, "orders.csv");
    bulk.push(
      await inNewDatabase(server.url, `bulk_${n++}`, (base) =>
        timed(async () => {
          await withDuckDB(join(dir, "src.duckdb"), (c) => c.run(`COPY orders TO '${csv}' (FORMAT csv, HEADER false)`));
          await withClient(base, async (c) => {
            await c.query(`CREATE TABLE orders ${DDL}`);
            await pipeline(createReadStream(csv), c.query(copyFrom("COPY orders FROM STDIN (FORMAT csv)")));
          });
        }).then(async (s) => {
          await expectRows(base, "orders", rows);
          return s;
        }),
      ),
    );
    rmSync(csv, { force: true });
    sqlload.push(
      await inNewDatabase(server.url, `sqlload_${n++}`, async (url) => {
        writeFileSync(
          join(dir, "sqlload.toml"),
          `[target]\nconnector = "postgres"\nurl = "${url}"\nschema = "raw"\n\n[sources.wh]\nconnector = "duckdb"\npath = "src.duckdb"\n\n` +
            `[sources.wh.tables."main.orders"]\ncursor_column = "updated_at"\n`,
        );
        const run = await peakRss(process.execPath, [cli, "load"], dir);
        await expectRows(url, "raw.wh__orders", rows);
        return run;
      }),
    );
  }
  const b = best(sqlload);
  console.log(describeMachine());
  console.log(
    `${rows.toLocaleString("en")} rows of orders from a DuckDB file${textBytes > 0 ? `, status about ${textBytes.toLocaleString("en")} bytes` : ""}`,
  );
  console.log(`DuckDB COPY TO csv, then Postgres COPY FROM STDIN csv: ${seconds(best(bulk))}${runs(bulk)}`);
  console.log(
    `sqlload load (DuckDB → Postgres): ${seconds(b)} = ${(b.s / best(bulk)).toFixed(2)}x the bulk path, peak RSS ${b.rssMB.toFixed(0)} MB${runs(sqlload)}`,
  );
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
