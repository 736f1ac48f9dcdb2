#!/usr/bin/env node
// DuckDB's own bulk load of a CSV file into a new `orders` table, with DuckDB's defaults: the
// baseline half of the benchmarks' sequential bulk path, run as a child process of its own so
// its peak RSS and CPU time are DuckDB's alone (see report-usage.cjs). Prints (JSON) the seconds and
// CPU seconds from opening the database to closing it, so a caller's figures leave out Node's own start.
//
//   node bench/duckdb-copy-from.mjs CSV DATABASE

import { duckdb } from "./common.mjs";

const [csv, database] = process.argv.slice(2);
const { DuckDBInstance } = duckdb();
const started = performance.now();
const cpu = process.cpuUsage();
const instance = await DuckDBInstance.create(database, {
  autoinstall_known_extensions: "false",
  autoload_known_extensions: "false",
});
const connection = await instance.connect();
await connection.run(
  "CREATE TABLE orders (id BIGINT, customer_id BIGINT, amount DECIMAL(12,2), status VARCHAR, updated_at TIMESTAMPTZ)",
);
await connection.run(`COPY orders FROM '${csv.replaceAll("'", "''")}' (FORMAT csv)`);
connection.closeSync();
instance.closeSync();
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ s: (performance.now() - started) / 1000, cpuS: (used.user + used.system) / 1e6 }));
