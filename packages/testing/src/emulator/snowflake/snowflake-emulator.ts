import { randomUUID, verify } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { EmulatorDatabase, type EmulatorSession, type StatementResult } from "../duckdb-executor.js";
import { EmulatorError } from "../emulator-error.js";
import { FailureInjector } from "../failure-injection.js";
import { matchStatement } from "../statement-shapes.js";
import { toWireError } from "./snowflake-errors.js";
import { rowsetData } from "./snowflake-rowset.js";
import { type SnowflakeContext, snowflakeShapes } from "./snowflake-statements.js";
import { copyRowset, matchStageStatement, TableStages } from "./snowflake-table-stages.js";

export interface SnowflakeEmulatorOptions {
  /** The user that may sign in (default `SQLLOAD`), case-insensitive as Snowflake's login names. */
  readonly user?: string;
  /** Its password (default `secret`). */
  readonly password?: string;
  /** An OAuth access token it accepts. */
  readonly oauthToken?: string;
  /** A PEM public key: key-pair sign-in (SNOWFLAKE_JWT) is accepted when the JWT verifies with it. */
  readonly publicKey?: string;
  /** The TIMEZONE users' sessions start in (default America/Los_Angeles, as in Snowflake). */
  readonly defaultTimezone?: string;
  /** Share a database with another emulator or a test (default: a new in-memory one). */
  readonly database?: EmulatorDatabase;
}

interface SessionState {
  readonly session: EmulatorSession;
  readonly context: SnowflakeContext;
}

/**
 * The HTTP protocol snowflake-sdk speaks, on real DuckDB: `/session/v1/login-request`,
 * `/queries/v1/query-request` (JSON rowsets, positional and array binds), `/session?delete=true`
 * and `/telemetry/send`. Each login is a session with its own transaction state; DDL commits an
 * open transaction first, as in Snowflake; two open transactions deleting from or merging into
 * one table conflict (Snowflake would make the second wait on the lock: the emulator answers its
 * lock-timeout error at once). Every request passes the failure injector first.
 */
export class SnowflakeEmulator {
  readonly failures = new FailureInjector();
  /** Every table's stage (`@schema.%table`): PUT files land here, COPY INTO reads them. */
  readonly stages = new TableStages();
  private readonly sessions = new Map<string, SessionState>();
  private queries = 0;

  private constructor(
    private readonly server: Server,
    readonly database: EmulatorDatabase,
    private readonly options: SnowflakeEmulatorOptions,
    private readonly ownsDatabase: boolean,
  ) {}

  static async start(options: SnowflakeEmulatorOptions = {}): Promise<SnowflakeEmulator> {
    const database = options.database ?? (await EmulatorDatabase.open());
    let emulator: SnowflakeEmulator | undefined;
    const server = createServer((request, response) => {
      void emulator?.handle(request, response);
    });
    emulator = new SnowflakeEmulator(server, database, options, !options.database);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return emulator;
  }

  /** The `access_url` to give sqlload's `[target]`. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private get timezone(): string {
    return this.options.defaultTimezone ?? "America/Los_Angeles";
  }

  /** Sessions signed in and not closed. */
  get openSessions(): number {
    return this.sessions.size;
  }

  /**
   * Ends every open session as Snowflake ends one whose client went away and that idled past its
   * timeout: its transaction rolled back (freeing its table locks), its temporary tables dropped.
   * Crash tests call it once the killed client is gone.
   */
  async expireSessions(): Promise<void> {
    for (const [token, state] of [...this.sessions]) await this.closeSession(token, state);
  }

  async close(): Promise<void> {
    this.failures.reset();
    for (const state of this.sessions.values()) state.session.close();
    this.sessions.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.stages.close();
    if (this.ownsDatabase) this.database.close();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown) => {
      if (response.destroyed) return;
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    try {
      const body = await readBody(request);
      const url = new URL(request.url ?? "/", "http://emulator");
      if (url.pathname === "/telemetry/send") return send(200, { success: true, data: null, code: null, message: null });
      if (url.pathname === "/session/v1/login-request") {
        await this.failures.intercept({ protocol: "snowflake", operation: "login-request", shapes: [] });
        return send(200, await this.login(body));
      }
      const state = this.sessions.get(tokenOf(request) ?? "");
      if (!state) {
        return send(
          200,
          fail({
            code: "390111",
            sqlState: "08001",
            message: "Session no longer exists. New login required to access the service.",
          }),
        );
      }
      if (url.pathname === "/session" && url.searchParams.get("delete") === "true") {
        await this.failures.intercept({ protocol: "snowflake", operation: "session-delete", shapes: [] });
        await this.closeSession(tokenOf(request) as string, state);
        return send(200, { success: true, data: null, code: null, message: null });
      }
      if (url.pathname === "/queries/v1/query-request") {
        const { sqlText, bindings } = JSON.parse(body || "{}") as { sqlText?: string; bindings?: Bindings };
        try {
          return send(200, {
            success: true,
            code: null,
            message: null,
            data: await this.execute(state, String(sqlText), bindings),
          });
        } catch (error) {
          const wire = toWireError(error);
          return send(wire.status, fail(wire));
        }
      }
      throw new EmulatorError("unsupported", `the emulator does not serve ${request.method} ${url.pathname}`);
    } catch (error) {
      const wire = toWireError(error);
      send(wire.status === 200 ? 404 : wire.status, fail(wire));
    }
  }

  private async login(body: string) {
    const data = (JSON.parse(body) as { data?: Record<string, unknown> }).data ?? {};
    const user = String(data.LOGIN_NAME ?? "");
    const authenticator = String(data.AUTHENTICATOR ?? "SNOWFLAKE").toUpperCase();
    const expected = (this.options.user ?? "SQLLOAD").toUpperCase();
    const accepted =
      user.toUpperCase() === expected &&
      ((authenticator === "SNOWFLAKE" && data.PASSWORD === (this.options.password ?? "secret")) ||
        (authenticator === "OAUTH" && this.options.oauthToken !== undefined && data.TOKEN === this.options.oauthToken) ||
        (authenticator === "SNOWFLAKE_JWT" && this.jwtVerifies(String(data.TOKEN ?? ""), user)));
    if (!accepted) {
      return fail({ code: "390100", sqlState: "08004", message: "Incorrect username or password was specified." });
    }
    const token = randomUUID();
    this.sessions.set(token, {
      session: await this.database.session(),
      context: { temporary: new Set(), defaultTimezone: this.timezone },
    });
    return {
      success: true,
      code: null,
      message: null,
      data: {
        token,
        masterToken: randomUUID(),
        validityInSeconds: 3600,
        masterValidityInSeconds: 14_400,
        sessionId: this.sessions.size,
        parameters: [{ name: "TIMEZONE", value: this.timezone }],
        sessionInfo: {},
      },
    };
  }

  /** An RS256 JWT whose subject is `ACCOUNT.USER`, signed by the key whose public half the emulator was given. */
  private jwtVerifies(jwt: string, user: string): boolean {
    if (!this.options.publicKey) return false;
    const [header, payload, signature] = jwt.split(".");
    if (!header || !payload || !signature) return false;
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as { sub?: string };
    if (!claims.sub?.toUpperCase().endsWith(`.${user.toUpperCase()}`)) return false;
    return verify("RSA-SHA256", Buffer.from(`${header}.${payload}`), this.options.publicKey, Buffer.from(signature, "base64url"));
  }

  private async closeSession(token: string, state: SessionState): Promise<void> {
    await state.session.rollback();
    for (const temporary of state.context.temporary) {
      await state.session.run(`DROP TABLE IF EXISTS ${temporary}`);
      this.stages.drop(temporary);
    }
    state.session.close();
    this.sessions.delete(token);
  }

  private async execute(state: SessionState, sqlText: string, bindings: Bindings | undefined) {
    // PUT and COPY INTO are served by the table stages, every other statement by its shape.
    const staged = matchStageStatement(sqlText);
    const matched = staged ? undefined : matchStatement(snowflakeShapes, sqlText);
    await this.failures.intercept({
      protocol: "snowflake",
      operation: "query-request",
      shapes: [staged?.shape ?? matched?.shape.name ?? ""],
      statement: sqlText,
    });
    const queryId = `01emu-${++this.queries}`;
    if (staged?.shape === "put") return { queryId, ...(await this.stages.put(state.session, staged)) };
    if (staged?.shape === "copy") return copyRowset(await this.stages.copy(state.session, staged), queryId);
    const { shape, match } = matched as NonNullable<typeof matched>;
    const session = state.session;
    const translation = shape.translate(match, state.context);
    if (shape.name === "drop_table") this.stages.drop(`${match[1]}.${match[2]}`);
    const empty: StatementResult = { columns: [], rows: [], rowsChanged: 0 };
    if ("action" in translation) {
      // Snowflake ignores BEGIN inside a transaction and COMMIT or ROLLBACK outside one.
      if (translation.action === "begin" && !session.inTransaction) await session.begin();
      if (translation.action === "commit" && session.inTransaction) await session.commit();
      if (translation.action === "rollback") await session.rollback();
      return rowsetData(empty, shape.kind, queryId);
    }
    if (shape.kind === "ddl" && session.inTransaction) await session.commit();
    for (const table of shape.writes?.(match) ?? []) session.claim(table);
    const { statements, params } = bind(translation.sql, shape.name, bindings);
    let result = empty;
    if (statements.length > 1 && !session.inTransaction) {
      await session.begin();
      for (const statement of statements) result = await session.run(statement, params);
      await session.commit();
    } else {
      for (const statement of statements) result = await session.run(statement, params);
    }
    return rowsetData(result, shape.kind, queryId);
  }
}

type Bindings = Readonly<Record<string, { readonly type: string; readonly value: string | null | readonly (string | null)[] }>>;

/**
 * Binds as DuckDB takes them: positional parameters for one row; an array bind (many rows of one
 * INSERT … VALUES) becomes one multi-row VALUES of literals, as the driver's server-side batch would.
 */
function bind(statements: readonly string[], shape: string, bindings: Bindings | undefined) {
  const entries = Object.entries(bindings ?? {})
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([, b]) => b);
  for (const b of entries) {
    if (b.type !== "TEXT") throw new EmulatorError("unsupported", `the emulator takes text binds only, not ${b.type}`);
  }
  const arrays = entries.some((b) => Array.isArray(b.value));
  if (!arrays) return { statements, params: entries.map((b) => b.value as string | null) };
  if (shape !== "insert_values") throw new EmulatorError("unsupported", "array binds are for INSERT … VALUES only");
  const columns = entries.map((b) => b.value as readonly (string | null)[]);
  const rows = (columns[0] ?? []).map((_, r) => `(${columns.map((c) => literal(c[r] ?? null)).join(", ")})`);
  const values = `VALUES ${rows.join(", ")}`;
  return { statements: statements.map((s) => s.replace(/VALUES \((\?(, )?)+\)$/, () => values)), params: undefined };
}

function literal(value: string | null): string {
  return value === null ? "NULL" : `'${value.replaceAll("'", "''")}'`;
}

function fail(error: { code: string; sqlState: string; message: string }) {
  return {
    success: false,
    code: error.code,
    message: error.message,
    data: { sqlState: error.sqlState, errorCode: error.code, queryId: null },
  };
}

function tokenOf(request: IncomingMessage): string | undefined {
  return /Snowflake Token="([^"]+)"/.exec(request.headers.authorization ?? "")?.[1];
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return (request.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw).toString("utf8");
}
