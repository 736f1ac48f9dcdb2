#!/usr/bin/env node
// ClickHouse's own bulk load of a CSV file, in chdb: the baseline half of pg-clickhouse-cli.mjs's
// sequential bulk path, run as a child process of its own so its CPU time and peak RSS are chdb's
// alone (see report-usage.cjs). It opens the chdb folder a sqlload load just wrote, makes a table
// exactly like the one sqlload made (`CREATE TABLE … AS`: same columns, engine and sorting key) and
// inserts the file into it with `INSERT … SELECT FROM file()`, with the merges of sqlload's table
// stopped so they do not run at its cost. Prints (JSON) the seconds and CPU
// seconds from opening the folder to the end of the insert, and the rows the table holds, so a
// caller's figures leave out the start of Node and the loading of chdb's library.
//
//   node bench/chdb-insert-file.mjs CSV CHDB_FOLDER LIKE_TABLE

import { requireFrom } from "./common.mjs";

const [csv, folder, like] = process.argv.slice(2);
const { Session } = requireFrom("connectors/clickhouse")("chdb");
const started = performance.now();
const cpu = process.cpuUsage();
const session = new Session(folder);
const text = (value) => `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
const [database, name] = like.split(".");
const describe = JSON.parse(
  session.query(
    `SELECT groupArray(concat('\`', name, '\` ', type)) AS columns FROM (SELECT name, type FROM system.columns WHERE database = ${text(database)} AND table = ${text(name)} ORDER BY position)`,
    "JSONEachRow",
  ),
);
// sqlload's parts would otherwise be merged in the background while this insert runs, at its cost.
session.query(`SYSTEM STOP MERGES ${like}`, "CSV");
session.query(`CREATE TABLE ${like}_bulk AS ${like}`, "CSV");
session.query(
  `INSERT INTO ${like}_bulk SELECT * FROM file(${text(csv)}, 'CSV', ${text(describe.columns.join(", "))}) SETTINGS date_time_input_format = 'best_effort'`,
  "CSV",
);
const used = process.cpuUsage(cpu);
const seconds = (performance.now() - started) / 1000;
const rows = Number(session.query(`SELECT count() FROM ${like}_bulk`, "CSV").trim());
session.close();
console.log(JSON.stringify({ s: seconds, cpuS: (used.user + used.system) / 1e6, rows }));
