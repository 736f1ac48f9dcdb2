#!/usr/bin/env node
// Insert throughput of sqlload's ClickHouse target (chdb in process), against the alternatives
// measured in the same run (issue 8): the connector's path (batches of 8,192 rows as the engine
// sends them, each a Native block, one INSERT per ~32 MB, staged and published), JSONCompactEachRow text through
// @clickhouse/client in 100,000-row inserts, ClickHouse's own bulk path (`INSERT … SELECT FROM
// file()` of the same rows in a CSV file, issue 15), and ClickHouse generating the same rows itself
// (`INSERT … SELECT FROM numbers()`, the ceiling). Also the peak RSS of the connector's load.
//
//   pnpm --filter @sqlload/core --filter @sqlload/connector-clickhouse build
//   node bench/clickhouse-insert.mjs [--rows 1000000] [--quick]

import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const requireFrom = createRequire(join(root, "connectors/clickhouse/package.json"));
const { createClient } = requireFrom("@clickhouse/client");
const { RecordBatchBuilder } = await import(join(root, "packages/core/dist/index.js"));
const { default: connector } = await import(join(root, "connectors/clickhouse/dist/index.js"));

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg("rows", process.argv.includes("--quick") ? 20_000 : 1_000_000);
const schema = [
  { name: "id", type: { kind: "int64" }, nullable: false },
  { name: "n", type: { kind: "int64" }, nullable: true },
  { name: "x", type: { kind: "float64" }, nullable: true },
  { name: "at", type: { kind: "timestamptz" }, nullable: true },
  { name: "name", type: { kind: "text" }, nullable: true },
];
const T0 = 1_790_000_000_000_000n;

// The engine hands targets RecordBatches of 8,192 rows; both paths start from those, built beforehand.
const batches = [];
for (let start = 0; start < N; start += 8192) {
  const b = new RecordBatchBuilder(schema, Math.min(8192, N - start));
  for (let i = start; i < Math.min(N, start + 8192); i++)
    b.append([BigInt(i), BigInt(i * 7), i / 3, T0 + BigInt(i) * 1000n, `name-${i}-é`]);
  batches.push(b.flush());
}

const dir = mkdtempSync(join(tmpdir(), "sqlload-bench-clickhouse-"));
const target = await connector.target({ options: { chdb_path: "engine" }, projectDir: dir, schema: "bench" });
const session = target.session;
const results = {};
const timed = async (name, work) => {
  const started = process.hrtime.bigint();
  await work();
  results[name] = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`${name.padEnd(44)} ${results[name].toFixed(2)} s  ${Math.round(N / results[name]).toLocaleString("en")} rows/s`);
};

console.log(
  `${N.toLocaleString("en")} rows of (Int64, Int64, Float64, DateTime64(6), String), chdb ${(await session.query("SELECT version() AS v"))[0].v}`,
);
const rssBefore = process.memoryUsage().rss;
let rssPeak = 0;
const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
await timed("sqlload Native blocks (staged, published)", async () => {
  const ref = { schema: "bench", name: "native_blocks" };
  const columns = await target.ensureTable(ref, schema, {});
  const unit = await target.begin(ref, { strategy: "append", columns });
  for (const b of batches) await unit.write(b);
  await unit.commit();
  await target.publish(ref);
});
clearInterval(sampler);

await session.command(
  "CREATE TABLE bench.json (id Int64, n Nullable(Int64), x Nullable(Float64), at Nullable(DateTime64(6, 'UTC')), name Nullable(String)) ENGINE = MergeTree ORDER BY id",
);
const client = createClient({ connection: requireFrom("chdb/connection").createChdbConnection({ path: join(dir, "engine") }) });
const microsToText = (us) => {
  const text = new Date(Number(us / 1000n)).toISOString();
  return `${text.slice(0, 10)} ${text.slice(11, 23)}${String(us % 1000n).padStart(3, "0")}`;
};
await timed("JSONCompactEachRow, 100,000-row inserts", async () => {
  let rows = [];
  const send = async () => {
    await client.insert({ table: "bench.json", values: rows, format: "JSONCompactEachRow" });
    rows = [];
  };
  for (const b of batches) {
    const [id, n, x, at, name] = b.columns.map((c) => c.values);
    for (let i = 0; i < b.length; i++) rows.push([String(id[i]), String(n[i]), x[i], microsToText(at[i]), name[i]]);
    if (rows.length >= 100_000) await send();
  }
  if (rows.length) await send();
});
// The file is written by ClickHouse beforehand (not timed); the timed part is its own bulk load.
const csv = join(dir, "rows.csv");
await session.command(`INSERT INTO FUNCTION file('${csv}', 'CSV') SELECT * FROM bench.json`);
await session.command("CREATE TABLE bench.file AS bench.json");
await timed("ClickHouse INSERT … SELECT FROM file() (CSV)", () =>
  session.command(
    `INSERT INTO bench.file SELECT * FROM file('${csv}', 'CSV', '${"id Int64, n Nullable(Int64), x Nullable(Float64), at Nullable(DateTime64(6, 'UTC')), name Nullable(String)".replaceAll("'", "\\'")}')`,
  ),
);
await session.command("CREATE TABLE bench.native AS bench.json");
await timed("ClickHouse generating the rows (ceiling)", () =>
  session.command(
    `INSERT INTO bench.native SELECT number, number * 7, number / 3, toDateTime64(${T0} + number * 1000, 6, 'UTC') / 1, concat('name-', toString(number), '-é') FROM numbers(${N})`.replace(
      `toDateTime64(${T0} + number * 1000, 6, 'UTC') / 1`,
      `fromUnixTimestamp64Micro(toInt64(${T0} + number * 1000), 'UTC')`,
    ),
  ),
);
for (const t of ["native_blocks", "json", "file", "native"]) {
  const [row] = await session.query(`SELECT count() AS n, sum(id) AS s FROM bench.${t}`);
  if (Number(row.n) !== N) throw new Error(`bench.${t} holds ${row.n} rows`);
}
console.log(
  `sqlload's insert is ${(results["sqlload Native blocks (staged, published)"] / results["ClickHouse INSERT … SELECT FROM file() (CSV)"]).toFixed(2)}x ClickHouse's own file() load; ` +
    `Native is ${(results["JSONCompactEachRow, 100,000-row inserts"] / results["sqlload Native blocks (staged, published)"]).toFixed(1)}x JSON's speed and ${(results["ClickHouse generating the rows (ceiling)"] / results["sqlload Native blocks (staged, published)"]).toFixed(2)}x the ceiling; peak RSS ${Math.round(rssPeak / 2 ** 20)} MB (${Math.round((rssPeak - rssBefore) / 2 ** 20)} MB over the process with its batches built and chdb loaded)`,
);
await client.close();
await target.close();
rmSync(dir, { recursive: true, force: true });
