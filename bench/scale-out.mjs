#!/usr/bin/env node
// 30 tables with windowed backfills: three `sqlload worker`s on a BullMQ queue (`load --queue
// --until-caught-up`) against one local `sqlload load --concurrency 3 --until-caught-up`, both
// through the built CLI into a Postgres target, best of N each, interleaved (issue 19).
//   pnpm build && node bench/scale-out.mjs [--quick] [--repeat 2] [--tables 30] [--rows 20000] [--backend postgres|redis]
// On one machine the workers share its cores, so this measures the queue's overhead, not a speed-up:
// the gain of scale-out comes from workers on machines of their own.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDatabase, startPostgres, startRedis } from "../packages/testing/dist/index.js";

const pg = createRequire(join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "testing", "package.json"))("pg");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const quick = process.argv.includes("--quick");
const repeat = Number(arg("repeat", quick ? 1 : 2));
const tables = Number(arg("tables", quick ? 6 : 30));
const rows = Number(arg("rows", quick ? 500 : 20_000));
const backend = arg("backend", "postgres");
const cli = join(dirname(fileURLToPath(import.meta.url)), "..", "apps", "cli", "bin", "run.js");

const server = await startPostgres();
const redis = backend === "redis" ? await startRedis() : undefined;
const workers = [];
try {
  const source = await createDatabase(server.url, "src");
  const client = new pg.Client({ connectionString: source });
  await client.connect();
  for (let i = 1; i <= tables; i++) {
    await client.query(`create table public.t${i} (id bigint primary key, updated_at timestamptz not null, v text);
      insert into public.t${i} select g, timestamptz '2026-01-01' + g * interval '1 second' * ${(28 * 86400) / rows}, md5(g::text) from generate_series(1, ${rows}) g;`);
  }
  await client.end();
  let toml = `[target]\nconnector = "postgres"\nurl = "\${TARGET_URL}"\n\n[sources.app]\nconnector = "postgres"\nurl = "${source}"\n`;
  for (let i = 1; i <= tables; i++) {
    toml += `\n[sources.app.tables."public.t${i}"]\ncursor_column = "updated_at"\ncursor_start = "2026-01-01"\ncursor_end = "2026-01-29"\nbatch_size = "7d"\nmax_windows_per_run = 1\nprimary_key = ["id"]\n`;
  }
  const dir = mkdtempSync(join(tmpdir(), "sqlload-bench-scale-"));
  writeFileSync(join(dir, "sqlload.toml"), toml);
  let n = 0;
  const run = async (args, queue) => {
    const target = await createDatabase(server.url, `dst${n++}`);
    const env = { ...process.env, TARGET_URL: target };
    if (queue)
      for (let w = 0; w < 3; w++)
        workers.push(spawn(process.execPath, [cli, "worker", "--queue", queue], { cwd: dir, env, stdio: "ignore" }));
    if (queue) await new Promise((r) => setTimeout(r, 1500)); // workers connect before the clock starts
    const started = process.hrtime.bigint();
    execFileSync(process.execPath, [cli, "load", ...args], { cwd: dir, env, stdio: "pipe" });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    for (const w of workers.splice(0)) w.kill("SIGTERM");
    return seconds;
  };
  const local = [];
  const queued = [];
  for (let i = 0; i < repeat; i++) {
    local.push(await run(["--concurrency", "3", "--until-caught-up"]));
    const queue = redis ? `${redis.url}/${i}` : await createDatabase(server.url, `queue${i}`);
    queued.push(await run(["--queue", queue, "--until-caught-up"], queue));
  }
  const best = (xs) => Math.min(...xs);
  const all = (xs) => xs.map((x) => x.toFixed(2)).join(" ");
  console.log(`${tables} tables x ${rows} rows, 4 weekly windows each, one window per pass`);
  console.log(`local load --concurrency 3        best ${best(local).toFixed(2)} s  (all: ${all(local)})`);
  console.log(`3 workers on ${backend} (load --queue) best ${best(queued).toFixed(2)} s  (all: ${all(queued)})`);
  console.log(`ratio ${(best(queued) / best(local)).toFixed(2)}x (3 workers on one machine against one local process)`);
} finally {
  for (const w of workers) w.kill("SIGKILL");
  await redis?.stop();
  await server.stop();
}
