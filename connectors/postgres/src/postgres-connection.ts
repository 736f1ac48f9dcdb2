import { readFileSync } from "node:fs";
import type { ConnectionOptions } from "node:tls";
import { SqlloadError } from "@sqlload/core";
import type * as Pg from "pg";
import { pgDriver } from "./pg-driver.js";
import { pooledSocket } from "./pooled-socket.js";
import { preferringClient } from "./prefer-tls.js";

/** The keys of a `[sources.X]` or `[target]` block using this connector. */
export interface PostgresOptions {
  readonly url?: string | undefined;
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly database?: string | undefined;
  readonly user?: string | undefined;
  readonly password?: string | undefined;
  readonly sslmode?: SslMode | undefined;
}

export const SSL_MODES = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** URL parameters sqlload reads itself, so that `sslmode` means what it means to libpq. */
const SSL_PARAMS = ["sslmode", "sslrootcert", "sslcert", "sslkey", "ssl", "uselibpqcompat"];

/**
 * `postgresql://user:***@host/db`: the URL with its password (in the user part or a `password`
 * parameter) replaced, for every message sqlload prints.
 */
export function redactUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^?#]*)(.*)$/is.exec(url);
  if (!m) return url.replace(/(\bpassword\s*=\s*)('[^']*'|\S+)/gi, "$1***");
  let authority = m[2] as string;
  // The last `@` ends the user part even when an unencoded password holds `@` or `/`.
  const at = authority.lastIndexOf("@");
  if (at >= 0) {
    const user = authority.slice(0, at);
    const colon = user.indexOf(":");
    if (colon >= 0) authority = `${user.slice(0, colon + 1)}***${authority.slice(at)}`;
  }
  const query = (m[3] as string).replace(/([?&]password=)[^&#]*/gi, "$1***");
  return `${m[1]}${authority}${query}`;
}

/** Redacts every connection URL and `password=` setting found in free text (error messages). */
export function redactSecrets(text: string): string {
  return text
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"]+/gi, (url) => redactUrl(url))
    .replace(/(\bpassword\s*=\s*)('[^']*'|[^\s&]+)/gi, (_, key: string) => `${key}***`);
}

/** What the connection is called in messages: the redacted URL, or host, port and database. */
export function describeConnection(options: PostgresOptions): string {
  if (options.url) return redactUrl(options.url);
  const host = options.host ?? process.env.PGHOST ?? "localhost";
  const port = options.port ?? process.env.PGPORT ?? 5432;
  const database = options.database ?? process.env.PGDATABASE ?? options.user ?? process.env.PGUSER ?? "";
  return `postgresql://${host}:${port}/${database}`;
}

interface SslFiles {
  readonly rootcert?: string | undefined;
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
}

/**
 * libpq's meaning of each mode. `prefer` asks for TLS and goes on in plain text on the same
 * connection when the server has none (preferringClient), and `allow` connects without TLS.
 */
export function sslConfig(mode: SslMode, files: SslFiles): false | ConnectionOptions {
  const read = (path: string | undefined) => (path ? readFileSync(path) : undefined);
  const certs = {
    ...(files.rootcert ? { ca: read(files.rootcert) } : {}),
    ...(files.cert ? { cert: read(files.cert) } : {}),
    ...(files.key ? { key: read(files.key) } : {}),
  };
  switch (mode) {
    case "disable":
    case "allow":
      return false;
    case "prefer":
      return { ...certs, rejectUnauthorized: false };
    case "require":
      // As in libpq, a root certificate given with `require` turns on chain verification.
      return files.rootcert
        ? { ...certs, rejectUnauthorized: true, checkServerIdentity: () => undefined }
        : { ...certs, rejectUnauthorized: false };
    case "verify-ca":
      return { ...certs, rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case "verify-full":
      return { ...certs, rejectUnauthorized: true };
  }
}

function parseSslMode(value: string | undefined, where: string): SslMode | undefined {
  if (value === undefined || value === "") return undefined;
  if ((SSL_MODES as readonly string[]).includes(value)) return value as SslMode;
  throw new SqlloadError("SL107", `${where} ${JSON.stringify(value)} is not an sslmode`, {
    hint: `Use one of ${SSL_MODES.join(", ")}.`,
  });
}

/**
 * The node-postgres configuration for the options: the URL (or the separate keys, which win
 * over the URL's parts), and missing parts from the usual `PG*` variables, which node-postgres
 * reads itself. `sslmode` comes from the options, else the URL, else `PGSSLMODE`, else `prefer`.
 */
export function connectionConfig(options: PostgresOptions): { config: Pg.ClientConfig; sslmode: SslMode; files: SslFiles } {
  let urlMode: string | undefined;
  const files: { rootcert?: string; cert?: string; key?: string } = {};
  const config: Pg.ClientConfig = { application_name: "sqlload" };
  if (options.url) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new SqlloadError("SL107", `url ${redactUrl(options.url)} is not a valid postgresql:// URL`, {
        hint: "Write it as postgresql://user:password@host:5432/database?sslmode=require.",
      });
    }
    urlMode = url.searchParams.get("sslmode") ?? undefined;
    files.rootcert = url.searchParams.get("sslrootcert") ?? undefined;
    files.cert = url.searchParams.get("sslcert") ?? undefined;
    files.key = url.searchParams.get("sslkey") ?? undefined;
    for (const key of SSL_PARAMS) url.searchParams.delete(key);
    if (options.host !== undefined) {
      if (options.host.startsWith("/")) url.searchParams.set("host", options.host);
      else url.hostname = options.host;
    }
    if (options.port !== undefined) url.port = String(options.port);
    if (options.database !== undefined) url.pathname = `/${encodeURIComponent(options.database)}`;
    if (options.user !== undefined) url.username = encodeURIComponent(options.user);
    if (options.password !== undefined) url.password = encodeURIComponent(options.password);
    config.connectionString = url.toString();
  } else {
    if (options.host !== undefined) config.host = options.host;
    if (options.port !== undefined) config.port = options.port;
    if (options.database !== undefined) config.database = options.database;
    if (options.user !== undefined) config.user = options.user;
    if (options.password !== undefined) config.password = options.password;
  }
  files.rootcert ??= process.env.PGSSLROOTCERT;
  files.cert ??= process.env.PGSSLCERT;
  files.key ??= process.env.PGSSLKEY;
  const sslmode =
    options.sslmode ?? parseSslMode(urlMode, "the URL's sslmode") ?? parseSslMode(process.env.PGSSLMODE, "PGSSLMODE") ?? "prefer";
  return { config, sslmode, files };
}

/**
 * Session settings that make every text form sqlload reads independent of the server's and the
 * role's defaults (types read through a cast to text).
 */
const SESSION_SETTINGS =
  "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'postgres'; SET extra_float_digits = 3";

/**
 * A pool for short queries, and dedicated clients for what must hold a session: a source
 * table's snapshot, a commit unit's transaction, an advisory lock.
 */
export class PostgresConnection {
  private pool: Pg.Pool | undefined;
  private readonly ssl: false | ConnectionOptions;
  private readonly base: Pg.ClientConfig;
  private readonly sslmode: SslMode;
  /** The connection as messages name it, password redacted. */
  readonly display: string;

  constructor(options: PostgresOptions) {
    const { config, sslmode, files } = connectionConfig(options);
    this.base = config;
    this.sslmode = sslmode;
    this.ssl = sslConfig(sslmode, files);
    this.display = describeConnection(options);
  }

  private config(): Pg.ClientConfig {
    // A TLS connection reads through its own socket, so only a plain one reads into reused buffers;
    // under `prefer` a connection starts plain and may stay so (preferringClient).
    if (!this.ssl) return { ...this.base, ssl: false, stream: pooledSocket };
    return this.sslmode === "prefer" ? { ...this.base, ssl: this.ssl, stream: pooledSocket } : { ...this.base, ssl: this.ssl };
  }

  /** The Client class connections are made with: under `prefer`, one that goes on in plain text when the server has no TLS. */
  private clientClass(pg: typeof Pg.default): typeof Pg.Client {
    return this.sslmode === "prefer" && this.ssl ? preferringClient(pg) : pg.Client;
  }

  private async getPool(): Promise<Pg.Pool> {
    const pg = await pgDriver();
    if (!this.pool) {
      const pool = new pg.Pool({ ...this.config(), Client: this.clientClass(pg), max: 10, idleTimeoutMillis: 10_000 });
      // An idle client whose server went away must not crash the process; the next query reports it.
      pool.on("error", () => undefined);
      pool.on("connect", (client) => {
        client.query(SESSION_SETTINGS).catch(() => undefined);
      });
      this.pool = pool;
    }
    return this.pool;
  }

  /** A pooled client; `release()` it. */
  async acquire(): Promise<Pg.PoolClient> {
    return (await this.getPool()).connect();
  }

  /** Runs one query on the pool. */
  async query<R extends Pg.QueryResultRow>(text: string, values?: unknown[]): Promise<Pg.QueryResult<R>> {
    const client = await this.acquire();
    try {
      return await client.query<R>(text, values);
    } finally {
      client.release();
    }
  }

  /**
   * A client outside the pool, for a session that outlives pooled work (an advisory lock). It
   * gets no session settings, a round trip fewer: what it runs must read no dates, times or
   * floating-point text.
   */
  async dedicated(): Promise<Pg.Client> {
    const pg = await pgDriver();
    const Client = this.clientClass(pg);
    const client = new Client(this.config());
    client.on("error", () => undefined);
    await client.connect();
    return client;
  }

  async end(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }
}
