import { setTimeout as sleep } from "node:timers/promises";
import type * as Snowflake from "snowflake-sdk";
import { isRetryableSnowflakeError } from "./errors.js";
import { snowflakeDriver } from "./snowflake-driver.js";

/** How sqlload signs in; exactly one. Secrets stay in here and are never printed. */
export type SnowflakeAuth =
  | { readonly kind: "password"; readonly password: string }
  | { readonly kind: "key_pair"; readonly privateKeyPath: string; readonly passphrase?: string | undefined }
  | { readonly kind: "oauth"; readonly token: string };

export interface SnowflakeSettings {
  readonly account: string;
  readonly user: string;
  readonly auth: SnowflakeAuth;
  readonly database: string;
  readonly role?: string | undefined;
  readonly warehouse?: string | undefined;
  /** A different address than `https://<account>.snowflakecomputing.com` (private link, a test emulator). */
  readonly accessUrl?: string | undefined;
  /**
   * A unit of at least this many rows is bulk-loaded (gzip CSV files, PUT to the stage's table
   * stage, COPY INTO); smaller units INSERT their rows with array binds. Default `DEFAULT_BULK_LOAD_ROWS`.
   */
  readonly bulkLoadRows?: number | undefined;
  /** Attempts for a statement that failed on the network or an expired token, outside a transaction. */
  readonly retries?: number | undefined;
}

export type Row = Readonly<Record<string, string | null>>;

/**
 * Every session runs in UTC; waits at most 2 minutes for a table lock (Snowflake's default is 12
 * hours: a run killed inside its transaction holds the table until its session times out, and the
 * next run should fail, retryably, rather than hang); and tags its queries for cost attribution.
 */
const SESSION_SETUP = "ALTER SESSION SET TIMEZONE = 'UTC', LOCK_TIMEOUT = 120, QUERY_TAG = 'sqlload'";

/**
 * One Snowflake session (a login of snowflake-sdk): transactions and temporary tables belong to
 * it, so each commit unit opens its own. Every session runs in UTC, so TIMESTAMP_NTZ values are
 * UTC wall times and TIMESTAMP_TZ values are written and compared at UTC.
 */
export class SnowflakeSession {
  private constructor(
    private connection: Snowflake.Connection,
    private readonly settings: SnowflakeSettings,
  ) {}

  static async open(settings: SnowflakeSettings): Promise<SnowflakeSession> {
    const session = new SnowflakeSession(await login(settings), settings);
    await session.run(SESSION_SETUP);
    return session;
  }

  /** Runs one statement; numbers and dates come back as exact text. */
  run(sqlText: string, binds?: readonly (string | null)[] | readonly (readonly (string | null)[])[]): Promise<Row[]> {
    return new Promise((resolve, reject) => {
      this.connection.execute({
        sqlText,
        ...(binds ? { binds: binds as Snowflake.Binds } : {}),
        fetchAsString: ["Number", "Date", "Boolean", "JSON", "Buffer"],
        complete: (error, _statement, rows) => (error ? reject(error) : resolve((rows ?? []) as Row[])),
      });
    });
  }

  /**
   * Runs a statement that may safely run again (a read, an idempotent DDL) outside any
   * transaction, retrying network errors with backoff; an expired session token (390114) signs
   * in anew first.
   */
  async runRetrying(sqlText: string, binds?: readonly (string | null)[]): Promise<Row[]> {
    const attempts = this.settings.retries ?? 4;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.run(sqlText, binds);
      } catch (error) {
        if (attempt >= attempts || !isRetryableSnowflakeError(error)) throw error;
        await sleep(Math.min(200 * 2 ** attempt, 5_000));
        if (Number((error as { code?: unknown }).code) === 390114) {
          await this.close();
          this.connection = await login(this.settings);
          await this.run(SESSION_SETUP);
        }
      }
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.connection.isUp()) return resolve();
      this.connection.destroy(() => resolve());
    });
  }
}

function login(settings: SnowflakeSettings): Promise<Snowflake.Connection> {
  const auth = settings.auth;
  const connection = snowflakeDriver().createConnection({
    account: settings.account,
    username: settings.user,
    database: settings.database,
    ...(settings.role ? { role: settings.role } : {}),
    ...(settings.warehouse ? { warehouse: settings.warehouse } : {}),
    ...(settings.accessUrl ? { accessUrl: settings.accessUrl } : {}),
    application: "sqlload",
    // Otherwise a NULL fetched as a string (every number, for exactness) arrives as the text "NULL".
    representNullAsStringNull: false,
    ...(auth.kind === "password" ? { password: auth.password } : {}),
    ...(auth.kind === "key_pair"
      ? {
          authenticator: "SNOWFLAKE_JWT",
          privateKeyPath: auth.privateKeyPath,
          ...(auth.passphrase ? { privateKeyPass: auth.passphrase } : {}),
        }
      : {}),
    ...(auth.kind === "oauth" ? { authenticator: "OAUTH", token: auth.token } : {}),
  });
  return new Promise((resolve, reject) => {
    connection.connect((error) => (error ? reject(error) : resolve(connection)));
  });
}
