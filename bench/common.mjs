// What the benchmarks share: arguments, the built packages and drivers, the `orders` table they
// all load, running a measured child process, and how figures are printed.
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));
export const cli = join(root, "apps", "cli", "bin", "run.js");
export const requireFrom = (dir) => createRequire(join(root, dir, "package.json"));
export const pg = requireFrom("connectors/postgres")("pg");
export const { to: copyTo, from: copyFrom } = requireFrom("connectors/postgres")("pg-copy-streams");
export const duckdb = () => requireFrom("connectors/duckdb")("@duckdb/node-api");

const argv = process.argv.slice(2);
/** `--name N` as a number, else the fallback. */
export const arg = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
export const hasFlag = (name) => argv.includes(`--${name}`);

export async function importBuilt(path) {
  try {
    return await import(join(root, path));
  } catch (error) {
    console.error(`cannot load ${path}: run \`pnpm build\` first\n${error.message}`);
    process.exit(2);
  }
}

export const DDL = "(id bigint, customer_id bigint, amount numeric(12,2), status text, updated_at timestamptz)";

/**
 * `orders` with `rows` rows and an index on `updated_at`; with `small`, `orders_small` holds its
 * first rows; with `wide`, each status is padded to about 1 KB (a wide row).
 */
export async function buildOrders(url, rows, { small, wide } = {}) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP TABLE IF EXISTS orders; CREATE TABLE orders ${DDL}`);
    await client.query(`INSERT INTO orders
      SELECT g, (g::int8 * 7919) % 100000, round((g % 100000) / 100.0 + 0.01, 2),
             (ARRAY['new','paid','shipped','cancelled'])[1 + g % 4]${wide ? " || repeat(md5(g::text), 31)" : ""},
             '2026-01-01'::timestamptz + g * interval '1 second' + (g % 1000) * interval '1 microsecond'
      FROM generate_series(1, ${rows}) g`);
    await client.query("CREATE INDEX ON orders (updated_at)");
    if (small)
      await client.query(
        `DROP TABLE IF EXISTS orders_small; CREATE TABLE orders_small AS SELECT * FROM orders WHERE id <= ${small}`,
      );
    await client.query("VACUUM ANALYZE");
  } finally {
    await client.end();
  }
}

/**
 * Puts the built ClickHouse connector in `dir`'s node_modules, as `npm i -D @sqlload/connector-clickhouse`
 * would (the CLI finds connectors in the project), with the package.json that names it.
 */
export function installClickHouse(dir) {
  mkdirSync(join(dir, "node_modules", "@sqlload"), { recursive: true });
  symlinkSync(join(root, "connectors", "clickhouse"), join(dir, "node_modules", "@sqlload", "connector-clickhouse"), "dir");
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "bench", private: true, devDependencies: { "@sqlload/connector-clickhouse": "*" } }),
  );
}

/** Runs a node child to its end; resolves `{ s, rssMB, cpuS, out }`: its wall time, its own peak RSS and CPU time, its output. */
export function peakRss(command, args, cwd, env = {}) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const proc = spawn(command, ["-r", join(root, "bench", "report-usage.cjs"), ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    let out = "";
    let usage = "";
    proc.stdout.on("data", (d) => {
      out += d;
    });
    proc.stderr.on("data", (d) => {
      out += d;
    });
    proc.stdio[3].on("data", (d) => {
      usage += d;
    });
    proc.on("error", reject);
    proc.on("close", (code) => {
      const s = (performance.now() - started) / 1000;
      if (code !== 0) reject(new Error(`${args.join(" ")} exited ${code}:\n${out.slice(-3000)}`));
      else resolve({ s, ...JSON.parse(usage.trim()), out });
    });
  });
}

/** Runs `work` on a connection to a DuckDB database (a file, or ":memory:") that nothing outside the run sees. */
export async function withDuckDB(path, work) {
  const { DuckDBInstance } = duckdb();
  const instance = await DuckDBInstance.create(path, {
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
  });
  const connection = await instance.connect();
  try {
    return await work(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * Brings a machine to the same state before each measured run: the Postgres server at `url`
 * checkpointed (its dirty buffers written to the OS, its WAL recycled), then every dirty page of the
 * OS written out (`sync`). A run writes hundreds of megabytes into the page cache, which the kernel
 * writes out later, while the next runs are measured.
 */
export async function settle(url) {
  if (url) await withClient(url, (c) => c.query("CHECKPOINT"));
  spawnSync("sync");
}

/**
 * Runs `work(url)` in a new database of the Postgres server at `serverUrl`, settled first, and drops
 * the database after: its files, and the pages they hold in the page cache, go with it, so no later
 * run pays for writing them out. (Runs that each left a table of hundreds of megabytes behind made
 * later runs slower, by up to a fifth: likely why whatever ran first in a round won.) `FORCE` ends
 * any connection a failed run left open, so the drop does not hide that run's own error.
 */
export async function inNewDatabase(serverUrl, name, work) {
  await withClient(serverUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    await settle(serverUrl);
    return await work(url.toString());
  } finally {
    await withClient(serverUrl, (c) => c.query(`DROP DATABASE "${name}" WITH (FORCE)`));
  }
}

/** Fails unless `table` of the Postgres database at `url` holds `expected` rows. */
export async function expectRows(url, table, expected) {
  const [{ count }] = await withClient(url, async (c) => (await c.query(`SELECT count(*)::int AS count FROM ${table}`)).rows);
  if (count !== expected) throw new Error(`${table} holds ${count} rows, expected ${expected}`);
}

/** Runs `work` on a Postgres client connected to `url`. */
export async function withClient(url, work) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Seconds a binary `COPY … TO STDOUT | COPY … FROM STDIN` pipe between two connections takes to copy
 * `table` of `src` into a new `into` of `dst`: the engines' own Postgres → Postgres bulk path.
 * `orderBy` reads the rows in that column's order instead (`COPY (SELECT … ORDER BY …)`).
 */
export async function binaryPipe(src, dst, table = "orders", into = table, { orderBy } = {}) {
  await withClient(dst, (c) => c.query(`DROP TABLE IF EXISTS ${into}; CREATE TABLE ${into} ${DDL}`));
  const a = new pg.Client({ connectionString: src });
  const b = new pg.Client({ connectionString: dst });
  await a.connect();
  await b.connect();
  try {
    return await timed(() =>
      pipeline(
        a.query(
          copyTo(
            orderBy
              ? `COPY (SELECT * FROM ${table} WHERE ${orderBy} IS NOT NULL ORDER BY ${orderBy}) TO STDOUT (FORMAT binary)`
              : `COPY ${table} TO STDOUT (FORMAT binary)`,
          ),
        ),
        b.query(copyFrom(`COPY ${into} FROM STDIN (FORMAT binary)`)),
      ),
    );
  } finally {
    await a.end();
    await b.end();
  }
}

/**
 * The same copy as `binaryPipe` between two `psql` processes (`psql … | psql …`), the baseline
 * issue 15 names: no Node on the path at all. Seconds, or undefined where `psql` is not installed.
 */
export async function psqlPipe(src, dst, table = "orders", into = table) {
  if (spawnSync("psql", ["--version"]).status !== 0) return undefined;
  await withClient(dst, (c) => c.query(`DROP TABLE IF EXISTS ${into}; CREATE TABLE ${into} ${DDL}`));
  const unload = `psql -X -q -v ON_ERROR_STOP=1 '${src}' -c 'COPY ${table} TO STDOUT (FORMAT binary)'`;
  const load = `psql -X -q -v ON_ERROR_STOP=1 '${dst}' -c 'COPY ${into} FROM STDIN (FORMAT binary)'`;
  return timed(
    () =>
      new Promise((resolve, reject) => {
        const proc = spawn("bash", ["-o", "pipefail", "-c", `${unload} | ${load}`], { stdio: ["ignore", "ignore", "inherit"] });
        proc.on("error", reject);
        proc.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`psql pipe exited with ${code}`))));
      }),
  );
}

/** Seconds a piece of work takes. */
export async function timed(work) {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** The fastest of several runs (`{ s }` objects or plain seconds). */
export const best = (list) => list.reduce((a, b) => ((a.s ?? a) <= (b.s ?? b) ? a : b));
export const seconds = (s) => `${(s.s ?? s).toFixed(2)} s`;
export const runs = (list) => (list.length > 1 ? ` [runs: ${list.map((x) => (x.s ?? x).toFixed(2)).join(", ")}]` : "");

export function describeMachine() {
  const [one, five] = loadavg();
  return (
    `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${cpus().length}x ${cpus()[0]?.model ?? "cpu"}, ` +
    `${(totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}, load average ${one.toFixed(1)} (5 min ${five.toFixed(1)})`
  );
}

const TICKS = 100; // clock ticks per second in /proc/<pid>/stat (USER_HZ)

function ticksOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // ppid, utime, stime, cutime, cstime
    return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined;
  }
}

/** The postmaster's process id of a server `startPostgres` started. */
export function postmasterOf(server) {
  return Number(readFileSync(join(server.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
}

/**
 * CPU seconds a Postgres server used so far: the postmaster, its live children, and the children it
 * has reaped (a backend's CPU counts once the postmaster has reaped it: wait a little after a load).
 */
export function serverCpu(postmaster) {
  const main = ticksOf(postmaster);
  let ticks = main ? main.own + main.children : 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const t = ticksOf(entry);
    if (t?.ppid === postmaster) ticks += t.own;
  }
  return ticks / TICKS;
}

/**
 * `COPY table TO STDOUT (FORMAT csv)` into the file `csv`, as psql's `\copy` does: the export half of
 * the benchmarks' sequential bulk paths. Resolves its wall and CPU seconds (this process's).
 */
export async function exportCsv(url, table, csv) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await pipeline(client.query(copyTo(`COPY ${table} TO STDOUT (FORMAT csv)`)), createWriteStream(csv));
  await client.end();
  const used = process.cpuUsage(cpu);
  return { s: (performance.now() - started) / 1000, cpuS: (used.user + used.system) / 1e6 };
}
