import type { ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  createDatabase,
  type PostgresInstance,
  type RedisInstance,
  startPostgres,
  startRedis,
  startSqlload,
} from "@sqlload/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlload, tempDir } from "./cli.js";

// Issue 19 / SPEC §14: several `sqlload worker`s run the table-runs `load --queue` enqueues; a
// worker killed at any instant, even between a commit and its acknowledgement, loses nothing and
// commits no window twice, on BullMQ's Postgres backend and on Redis.

const TABLES = 30;
const DAYS = 6; // windows per table; two per pass, so three chained passes each

let server: PostgresInstance;
let redis: RedisInstance;
let databases = 0;

beforeAll(async () => {
  [server, redis] = await Promise.all([startPostgres(), startRedis()]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), redis?.stop()]);
});

async function sql(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

const name = (i: number) => `t${String(i).padStart(2, "0")}`;

/** A source of 30 tables with rows over six days, a Postgres target, and a project loading them in 1-day windows. */
async function scenario(): Promise<{ dir: string; source: string; target: string; env: Record<string, string> }> {
  const n = databases++;
  const [source, target] = await Promise.all([createDatabase(server.url, `src${n}`), createDatabase(server.url, `dst${n}`)]);
  let ddl = "";
  for (let i = 1; i <= TABLES; i++) {
    ddl += `create table public.${name(i)} (id bigint primary key, updated_at timestamptz not null, v text);
      insert into public.${name(i)} select g, timestamptz '2026-01-01 00:00:00+00' + (g * interval '1 minute') * ${DAYS * 1440 - 1} / ${40 * i}, 'row ' || g
      from generate_series(1, ${40 * i}) g;\n`;
  }
  await sql(source, ddl);
  const dir = tempDir("sqlload-scale-");
  let toml = `[target]\nconnector = "postgres"\nurl = "\${TARGET_URL}"\nschema = "raw"\n\n[sources.app]\nconnector = "postgres"\nurl = "\${SOURCE_URL}"\n`;
  for (let i = 1; i <= TABLES; i++) {
    toml += `\n[sources.app.tables."public.${name(i)}"]\ncursor_column = "updated_at"\ncursor_start = "2026-01-01"\ncursor_end = "2026-01-0${1 + DAYS}"\nbatch_size = "1d"\nmax_windows_per_run = 2\nwrite_strategy = "delete_insert"\nprimary_key = ["id"]\n`;
  }
  writeFileSync(join(dir, "sqlload.toml"), toml);
  return { dir, source, target, env: { SOURCE_URL: source, TARGET_URL: target } };
}

interface RunningWorker {
  readonly child: ChildProcess;
  taken: number;
  /** Resolves when the worker says it is ready on the queue. */
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
}

function startWorker(dir: string, queue: string, env: Record<string, string>): RunningWorker {
  const child = startSqlload(["worker", "--queue", queue, "--stall-timeout", "2"], { cwd: dir, env });
  let ready: () => void = () => {};
  const worker: RunningWorker = {
    child,
    taken: 0,
    ready: new Promise((resolve) => {
      ready = resolve;
    }),
    exited: new Promise((resolve) => child.on("close", () => resolve())),
  };
  child.on("close", () => ready());
  let said = "";
  child.stderr?.on("data", (d: Buffer) => {
    said += d;
    if (said.includes("worker ready on")) ready();
    worker.taken += (String(d).match(/ took /g) ?? []).length;
    if (process.env.SQLLOAD_TEST_VERBOSE) process.stderr.write(`[worker ${child.pid}] ${d}`);
  });
  return worker;
}

async function expectExactlyLoaded(source: string, target: string): Promise<void> {
  for (let i = 1; i <= TABLES; i++) {
    const fingerprint = `select count(*)::int n, coalesce(sum(id), 0)::text s, count(distinct id)::int d from`;
    const [want, got] = await Promise.all([
      sql(source, `${fingerprint} public.${name(i)}`),
      sql(target, `${fingerprint} raw.app__${name(i)}`),
    ]);
    expect(got.rows[0], name(i)).toEqual(want.rows[0]);
  }
  // Every window of every table committed once: one run-log record per (table, window end).
  const twice = await sql(
    target,
    `select table_name, body::json->>'windowEnd' w, count(*)::int n from raw._sqlload_runs
      where body::json->>'event' = 'run' and body::json->>'windowEnd' is not null
      group by 1, 2 having count(*) > 1`,
  );
  expect(twice.rows).toEqual([]);
  const windows = await sql(
    target,
    `select count(distinct (table_name, body::json->>'windowEnd'))::int n from raw._sqlload_runs`,
  );
  expect(windows.rows[0]?.n).toBe(TABLES * DAYS);
}

const backends = [
  ["postgres", () => createDatabase(server.url, `queue${databases++}`)],
  ["redis", async () => `${redis.url}/${databases++ % 16}`],
] as const;

describe.each(backends)("scale-out on BullMQ's %s backend", (_backend, queueUrl) => {
  it("three workers, the busiest SIGKILLed twice: every table exactly equal to its source, no window twice", async () => {
    const { dir, source, target, env } = await scenario();
    const queue = await queueUrl();
    const workers = [0, 1, 2].map(() => startWorker(dir, queue, env));
    try {
      const load = sqlload(["load", "--queue", queue, "--until-caught-up", "--concurrency", "3"], { cwd: dir, env });
      for (const threshold of [8, 40]) {
        while (workers.reduce((sum, w) => sum + w.taken, 0) < threshold) await new Promise((r) => setTimeout(r, 50));
        const busiest = workers.reduce((a, b) => (b.taken > a.taken ? b : a));
        busiest.child.kill("SIGKILL");
        await busiest.exited;
        workers.splice(workers.indexOf(busiest), 1, startWorker(dir, queue, env));
      }
      const result = await load;
      expect(result.stderr).not.toMatch(/failed|error SL/);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`done: ${TABLES} of ${TABLES} tables loaded`));
      await expectExactlyLoaded(source, target);
    } finally {
      for (const w of workers) w.child.kill("SIGKILL");
    }
  }, 400_000);

  it("a worker killed between a commit and its acknowledgement: the pass runs again and commits nothing twice", async () => {
    const { dir, source, target, env } = await scenario();
    const queue = await queueUrl();
    const crashing = startWorker(dir, queue, { ...env, SQLLOAD_TEST_CRASH: "ack:3" });
    const workers = [crashing, startWorker(dir, queue, env), startWorker(dir, queue, env)];
    try {
      const result = await sqlload(["load", "--queue", queue, "--until-caught-up"], { cwd: dir, env });
      await crashing.exited;
      expect(crashing.child.signalCode).toBe("SIGKILL");
      expect(result.code, result.stdout + result.stderr).toBe(0);
      await expectExactlyLoaded(source, target);
    } finally {
      for (const w of workers) w.child.kill("SIGKILL");
    }
  }, 400_000);
});

describe("load --queue", () => {
  it("--detach prints the run id and exits; status shows the run; a worker of another project version refuses", async () => {
    const { dir, env } = await scenario();
    const queue = await createDatabase(server.url, `queue${databases++}`);
    const detached = await sqlload(["load", "--queue", queue, "app__t01", "--detach"], { cwd: dir, env });
    expect(detached.code, detached.stderr).toBe(0);
    const runId = detached.stdout.trim();
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    const status = await sqlload(["status", "--queue", queue, runId], { cwd: dir, env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/queued 1, running 0, done 0, failed 0/);
    expect(status.stdout).toMatch(/waiting\s+raw\.app__t01 pass 1/);
    // Another version of the project (one setting changed) must not run this job.
    const other = tempDir("sqlload-scale-other-");
    writeFileSync(join(other, "sqlload.toml"), `${readFileSync(join(dir, "sqlload.toml"), "utf8")}\n# changed\n`);
    const worker = startWorker(other, queue, env);
    try {
      // Each look is a CLI start: none before the worker can have taken the job.
      await worker.ready;
      for (let i = 0; i < 200; i++) {
        const s = await sqlload(["status", "--queue", queue, runId, "--json"], { cwd: dir, env });
        const passes = JSON.parse(s.stdout).passes as { state: string; error?: string }[];
        if (passes[0]?.state === "failed") {
          expect(passes[0].error).toMatch(/SL601/);
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("the worker of another project version did not refuse the job");
    } finally {
      worker.child.kill("SIGKILL");
    }
  });

  it("a URL of another scheme is a usage error before anything is enqueued", async () => {
    const { dir, env } = await scenario();
    const result = await sqlload(["load", "--queue", "mysql://x/y"], { cwd: dir, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/SL600/);
  });
});
