import { execFile, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { chown, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

/** A Postgres server in a temporary folder, for one test file. */
export interface PostgresInstance {
  /** `postgresql://postgres@127.0.0.1:PORT/postgres`: superuser, trust auth, no password. */
  readonly url: string;
  readonly port: number;
  /** The temporary folder holding the data directory, the socket and the server log. */
  readonly dir: string;
  /** Stops the server and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

const DEBIAN_BIN_ROOT = "/usr/lib/postgresql";

/**
 * Finds a Postgres binary: on PATH first, then in Debian's versioned folders (the `postgresql`
 * package installs there and puts only client wrappers on PATH).
 */
export function findPostgresBinary(name: "initdb" | "pg_ctl" | "postgres", binDir?: string): string | undefined {
  if (binDir !== undefined) return existsSync(join(binDir, name)) ? join(binDir, name) : undefined;
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    if (folder && existsSync(join(folder, name))) return join(folder, name);
  }
  if (!existsSync(DEBIAN_BIN_ROOT)) return undefined;
  const versions = readdirSync(DEBIAN_BIN_ROOT)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const path = join(DEBIAN_BIN_ROOT, version, "bin", name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

interface Binaries {
  readonly initdb: string;
  readonly pgCtl: string;
  readonly version: string;
}

const binaries = new Map<string, Promise<Binaries>>();

async function findBinaries(binDir: string | undefined): Promise<Binaries> {
  const initdb = findPostgresBinary("initdb", binDir);
  const pgCtl = findPostgresBinary("pg_ctl", binDir);
  if (!initdb || !pgCtl) {
    const where = binDir === undefined ? "on PATH nor in /usr/lib/postgresql/*/bin" : `in ${binDir}`;
    throw new Error(
      `Postgres is not installed: \`initdb\` and \`pg_ctl\` were found neither ${where}. ` +
        "Install the server, e.g. `apt-get install -y postgresql` (or run scripts/ensure-postgres.sh).",
    );
  }
  const { stdout } = await run(initdb, ["--version"]);
  return { initdb, pgCtl, version: stdout.trim() };
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

/**
 * initdb refuses to run as root, so as root every server command runs as the `postgres` user,
 * and the folders it writes must belong to that user.
 */
async function asServerUser(file: string, args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  return asRoot ? run("runuser", ["-u", "postgres", "--", file, ...args]) : run(file, [...args]);
}

async function serverUserIds(): Promise<{ uid: number; gid: number } | undefined> {
  if (!asRoot) return undefined;
  const passwd = await readFile("/etc/passwd", "utf8");
  const line = passwd.split("\n").find((l) => l.startsWith("postgres:"));
  if (!line) {
    throw new Error("running as root needs a `postgres` user to run the server as (the `postgresql` package creates it)");
  }
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

/** A folder only the server user can enter: Postgres insists on it for the socket folder. */
async function makeServerFolder(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const ids = await serverUserIds();
  if (ids) await chown(dir, ids.uid, ids.gid);
  return dir;
}

const templates = new Map<string, Promise<string>>();

/**
 * initdb takes about a second; copying a data directory it made once takes a third of that.
 * The template is built beside the others and renamed into place, so concurrent test workers
 * either find a complete one or build their own and keep whichever landed first.
 */
async function templateDataDir(bins: Binaries): Promise<string> {
  const key = createHash("sha256").update(`${bins.initdb}\n${bins.version}`).digest("hex").slice(0, 12);
  const owner = asRoot ? "root" : String(process.getuid?.() ?? "user");
  const final = join(tmpdir(), `sqlload-pg-template-${owner}-${key}`);
  const ready = join(final, "ready");
  if (existsSync(ready)) return join(final, "data");
  const build = await makeServerFolder("sqlload-pg-template-build-");
  try {
    await asServerUser(bins.initdb, [
      "-D",
      join(build, "data"),
      "-U",
      "postgres",
      "-A",
      "trust",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
      "--no-instructions",
      // 1 MB WAL segments instead of 16: less to copy for every server started.
      "--wal-segsize=1",
    ]);
    await writeFile(join(build, "ready"), bins.version);
    await rename(build, final).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
      await rm(build, { recursive: true, force: true });
    });
  } catch (error) {
    await rm(build, { recursive: true, force: true });
    throw error;
  }
  return join(final, "data");
}

const running = new Map<string, { pgCtl: string; data: string }>();
let exitHookInstalled = false;

/** A test runner that dies or forgets `stop()` must not leave servers behind. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const [dir, { pgCtl, data }] of running) {
      const args = [pgCtl, "-D", data, "-m", "immediate", "-w", "stop"];
      if (asRoot) spawnSync("runuser", ["-u", "postgres", "--", ...args], { stdio: "ignore" });
      else spawnSync(args[0] as string, args.slice(1), { stdio: "ignore" });
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

export interface StartPostgresOptions {
  /** The folder holding initdb and pg_ctl (default: `SQLLOAD_PG_BIN`, PATH, then /usr/lib/postgresql/*\/bin). */
  readonly binDir?: string;
  /** Serve TLS too, with a self-signed certificate for 127.0.0.1 made by `openssl` (clients choose; none is required). */
  readonly tls?: boolean;
}

/** A key and a self-signed certificate for 127.0.0.1 in the data folder, owned by the server's user; the settings that serve them. */
async function selfSignedCertificate(data: string): Promise<string> {
  const key = join(data, "server.key");
  const cert = join(data, "server.crt");
  await asServerUser("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=127.0.0.1",
    "-keyout",
    key,
    "-out",
    cert,
  ]);
  await asServerUser("chmod", ["600", key]);
  return ` -c ssl=on -c ssl_cert_file=${cert} -c ssl_key_file=${key}`;
}

/**
 * Starts a throwaway Postgres on a free port of 127.0.0.1, in a new temporary folder, with
 * durability off (`fsync`, `synchronous_commit`, `full_page_writes`) since tests never need
 * to survive a power cut. As root the server runs as the `postgres` user via `runuser`.
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresInstance> {
  const binDir = options.binDir ?? process.env.SQLLOAD_PG_BIN;
  const key = binDir ?? "";
  if (!binaries.has(key)) binaries.set(key, findBinaries(binDir));
  const bins = await (binaries.get(key) as Promise<Binaries>).catch((error) => {
    binaries.delete(key);
    throw error;
  });
  if (!templates.has(bins.initdb)) templates.set(bins.initdb, templateDataDir(bins));
  const templateData = await (templates.get(bins.initdb) as Promise<string>).catch((error) => {
    templates.delete(bins.initdb);
    throw error;
  });
  const dir = await makeServerFolder("sqlload-pg-");
  const data = join(dir, "data");
  // Ownership and the 0700 mode Postgres demands come with the copy.
  await asServerUser("cp", ["-a", templateData, data]);
  const tlsSettings = options.tls ? await selfSignedCertificate(data) : "";
  installExitHook();
  running.set(dir, { pgCtl: bins.pgCtl, data });
  let lastError: unknown;
  // Another process may take the port between our probe and the server's bind: try a few.
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    try {
      await asServerUser(bins.pgCtl, [
        "-D",
        data,
        "-l",
        join(dir, "log"),
        "-w",
        "-t",
        "30",
        "-o",
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off${tlsSettings}`,
        "start",
      ]);
      let stopped = false;
      return {
        url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
        port,
        dir,
        async stop() {
          if (stopped) return;
          stopped = true;
          try {
            await asServerUser(bins.pgCtl, ["-D", data, "-m", "fast", "-w", "stop"]);
          } finally {
            running.delete(dir);
            await rm(dir, { recursive: true, force: true });
          }
        },
      };
    } catch (error) {
      lastError = error;
      const log = await readFile(join(dir, "log"), "utf8").catch(() => "");
      if (!/could not bind|address already in use/i.test(log)) break;
    }
  }
  running.delete(dir);
  const log = await readFile(join(dir, "log"), "utf8").catch(() => "");
  await rm(dir, { recursive: true, force: true });
  throw new Error(`Postgres did not start: ${(lastError as Error).message}\n${log}`, { cause: lastError });
}
