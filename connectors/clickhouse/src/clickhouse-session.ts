import { randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Readable } from "node:stream";
import { type ClickHouseClient, type ClickHouseSettings, createClient } from "@clickhouse/client";
import { processAlive, SqlloadError, Turns } from "@sqlload/core";
import { qualifiedName, quoteIdent, stringLiteral } from "./clickhouse-dialect.js";
import { wrapClickHouseError } from "./errors.js";

/** Query parameters, bound by the server (`{name:Type}` in the SQL), never spliced into it. */
export type Params = Readonly<Record<string, string | number | boolean>>;

/**
 * Settings every statement runs with. 64-bit integers and decimals come back as JSON strings so
 * no digit is lost to a JS number; a NULL into a non-Nullable column fails instead of silently
 * becoming 0 or ''; lightweight DELETE returns once its rows are gone.
 */
export const SESSION_SETTINGS: ClickHouseSettings = {
  output_format_json_quote_64bit_integers: 1,
  output_format_json_quote_decimals: 1,
  insert_null_as_default: 0,
  lightweight_deletes_sync: "2",
};

/**
 * The statements the connector needs, over a ClickHouse server (HTTP) or chdb (in process).
 * Both go through @clickhouse/client; only inserts of Native blocks differ: over HTTP the bytes are
 * the request body of `INSERT … SELECT FROM input(…)`, while chdb's client bridge passes bodies as
 * UTF-8 text, so there they go through a temporary file and `file(…, 'Native', …)`.
 */
export interface ClickHouseSession {
  readonly kind: "server" | "chdb";
  /** Where the data lives, for messages: the URL without credentials, or the chdb folder. */
  readonly where: string;
  query<T>(sql: string, params?: Params): Promise<T[]>;
  command(sql: string, params?: Params): Promise<void>;
  /**
   * `INSERT INTO database.table (columns) SELECT * FROM <Native blocks of structure>`. `blocks` must
   * stay as it is until the promise settles (over HTTP the request streams from it).
   */
  insertNative(database: string, table: string, columns: readonly string[], structure: string, blocks: Buffer): Promise<void>;
  /** Inserts a few rows as JSONEachRow (one block, so all or none land). */
  insertJSON(database: string, table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
  release(): Promise<void>;
}

export interface ServerOptions {
  readonly url: string;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  readonly database?: string | undefined;
}

abstract class BaseSession implements ClickHouseSession {
  abstract readonly kind: "server" | "chdb";
  abstract readonly where: string;

  constructor(protected readonly client: ClickHouseClient) {}

  protected run<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }

  query<T>(sql: string, params?: Params): Promise<T[]> {
    return this.run(async () => {
      const result = await this.client.query({ query: sql, format: "JSONEachRow", ...(params ? { query_params: params } : {}) });
      return (await result.json()) as T[];
    });
  }

  command(sql: string, params?: Params): Promise<void> {
    return this.run(async () => {
      await this.client.command({ query: sql, ...(params ? { query_params: params } : {}) });
    });
  }

  insertJSON(database: string, table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return this.run(async () => {
      await this.client.insert({ table: qualifiedName(database, table), values: [...rows], format: "JSONEachRow" });
    });
  }

  abstract insertNative(
    database: string,
    table: string,
    columns: readonly string[],
    structure: string,
    blocks: Buffer,
  ): Promise<void>;
  abstract release(): Promise<void>;
}

class ServerSession extends BaseSession {
  readonly kind = "server" as const;

  constructor(
    client: ClickHouseClient,
    readonly where: string,
  ) {
    super(client);
  }

  insertNative(database: string, table: string, columns: readonly string[], structure: string, blocks: Buffer): Promise<void> {
    return this.run(async () => {
      const result = await this.client.exec({
        query: `INSERT INTO ${qualifiedName(database, table)} (${columns.map(quoteIdent).join(", ")}) SELECT * FROM input(${stringLiteral(structure)}) FORMAT Native`,
        values: Readable.from([blocks]),
      });
      // The response body is empty, but the socket is only reused once it has been read.
      for await (const _ of result.stream) {
        // drain
      }
    });
  }

  release(): Promise<void> {
    return this.client.close();
  }
}

/** One chdb engine per process and folder (chdb binds a single folder per process): shared, counted. */
interface SharedChdb {
  readonly client: ClickHouseClient;
  readonly folder: string;
  /** Where Native files wait for `file()`; removed when the last user releases, or by a later process when this one was killed. */
  readonly spool: string;
  users: number;
  /** chdb runs statements one at a time anyway; taking turns here keeps callers' order. */
  readonly turns: Turns;
}

const chdbs = new Map<string, Promise<SharedChdb>>();

class ChdbSession extends BaseSession {
  readonly kind = "chdb" as const;
  private released = false;

  constructor(private readonly shared: SharedChdb) {
    super(shared.client);
  }

  get where(): string {
    return this.shared.folder;
  }

  protected override run<T>(work: () => Promise<T>): Promise<T> {
    if (this.released)
      return Promise.reject(new SqlloadError("SL900", `the chdb session ${this.where} was used after it was closed`));
    return this.shared.turns.run(work);
  }

  async insertNative(
    database: string,
    table: string,
    columns: readonly string[],
    structure: string,
    blocks: Buffer,
  ): Promise<void> {
    const file = join(this.shared.spool, `${randomBytes(6).toString("hex")}.native`);
    writeBlocks(file, blocks);
    try {
      await this.command(
        `INSERT INTO ${qualifiedName(database, table)} (${columns.map(quoteIdent).join(", ")}) SELECT * FROM file(${stringLiteral(file)}, 'Native', ${stringLiteral(structure)})`,
      );
    } finally {
      await unlink(file).catch(() => undefined);
    }
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.shared.turns.idle();
    if (--this.shared.users > 0) return;
    chdbs.delete(this.shared.folder);
    rmSync(this.shared.spool, { recursive: true, force: true });
    await this.shared.client.close();
  }
}

/**
 * Writes the blocks to a new file. Synchronously: a write to the page cache takes milliseconds,
 * while an asynchronous one waits for the event loop, which the caller keeps busy encoding the next
 * insert, so chdb would sit idle until it is done.
 */
function writeBlocks(file: string, blocks: Buffer): void {
  const fd = openSync(file, "wx");
  try {
    // A short write (rare on a local file) continues from where it stopped.
    for (let at = 0; at < blocks.length; ) at += writeSync(fd, blocks, at, blocks.length - at);
  } finally {
    closeSync(fd);
  }
}

export async function openServer(options: ServerOptions): Promise<ClickHouseSession> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new SqlloadError("SL107", "the ClickHouse target's `url` is not a URL", {
      hint: "Write it as http://host:8123 (or https://host:8443), optionally with user:password@ before the host.",
    });
  }
  const where = `${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`;
  const client = createClient({
    url: options.url,
    ...(options.username !== undefined ? { username: options.username } : {}),
    ...(options.password !== undefined ? { password: options.password } : {}),
    ...(options.database !== undefined ? { database: options.database } : {}),
    clickhouse_settings: SESSION_SETTINGS,
    application: "sqlload",
    // A publish may copy or rewrite a large table in one statement (a DELETE, an engine change):
    // the client's default of 30 s would abandon it while the server carries on.
    request_timeout: 3_600_000,
  });
  const session = new ServerSession(client, where);
  try {
    await session.query("SELECT 1");
  } catch (error) {
    await client.close().catch(() => undefined);
    throw wrapClickHouseError(error, `cannot connect to ClickHouse at ${where}`, { connecting: true });
  }
  return session;
}

/** Opens (or shares) the chdb engine on `folder`, relative to `projectDir`. */
export async function openChdb(folder: string, projectDir: string): Promise<ClickHouseSession> {
  const path = resolve(projectDir, folder);
  let pending = chdbs.get(path);
  if (!pending) {
    pending = createChdb(path);
    chdbs.set(path, pending);
    pending.catch(() => chdbs.delete(path));
  }
  const shared = await pending;
  shared.users++;
  return new ChdbSession(shared);
}

const SPOOL_PREFIX = "sqlload-chdb-";

/** Removes the spool folders of processes that are gone (a run killed before it could clean up). */
function sweepSpools(): void {
  try {
    for (const name of readdirSync(tmpdir())) {
      const pid = Number(/^sqlload-chdb-(\d+)-/.exec(name)?.[1]);
      if (!pid || pid === process.pid || processAlive(pid)) continue;
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  } catch {
    // Only housekeeping.
  }
}

/**
 * The process holding a chdb folder, from the `status` file ClickHouse keeps (and locks) there
 * while it runs: chdb reports a held folder only on stderr, its error says no more than "failed".
 */
function chdbHolder(folder: string): string | undefined {
  try {
    const pid = Number(/^PID: (\d+)/m.exec(readFileSync(join(folder, "status"), "utf8"))?.[1]);
    if (!Number.isSafeInteger(pid) || pid === process.pid) return undefined;
    process.kill(pid, 0);
    return `pid ${pid}`;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM" ? "another user's process" : undefined;
  }
}

async function createChdb(folder: string): Promise<SharedChdb> {
  let createChdbConnection: (options: { path: string }) => unknown;
  try {
    const module = (await import("chdb/connection")) as {
      createChdbConnection?: typeof createChdbConnection;
      default?: { createChdbConnection: typeof createChdbConnection };
    };
    createChdbConnection = (module.createChdbConnection ?? module.default?.createChdbConnection) as typeof createChdbConnection;
  } catch (cause) {
    throw new SqlloadError("SL400", "`chdb_path` needs the chdb package, which is not installed", {
      cause,
      hint: "Install it beside the connector: `npm i -D chdb` (ClickHouse in process, about 180 MB), or give `url` of a ClickHouse server instead.",
    });
  }
  let client: ClickHouseClient;
  try {
    const connection = createChdbConnection({ path: folder });
    client = createClient({ connection: connection as never, clickhouse_settings: SESSION_SETTINGS });
  } catch (error) {
    const holder = chdbHolder(folder);
    if (holder !== undefined) {
      throw new SqlloadError("SL306", `the chdb folder ${folder} is open in another process (${holder})`, {
        cause: error,
        hint: "chdb lets one process open a folder at a time: wait for the other run (or close the other program), then run again.",
      });
    }
    throw wrapClickHouseError(error, `cannot open chdb in ${folder}`, { connecting: true });
  }
  sweepSpools();
  const spool = mkdtempSync(join(tmpdir(), `${SPOOL_PREFIX}${process.pid}-`));
  return { client, folder, spool, users: 0, turns: new Turns() };
}
