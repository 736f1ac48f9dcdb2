import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:https";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import type { DuckDBValue } from "@duckdb/node-api";
import { EmulatorDatabase, type EmulatorSession, type StatementResult } from "../duckdb-executor.js";
import { EmulatorError } from "../emulator-error.js";
import { FailureInjector } from "../failure-injection.js";
import { type MatchedStatement, matchStatement, splitStatements } from "../statement-shapes.js";
import { databricksErrorStatus } from "./databricks-errors.js";
import { resultRowSet, resultSchema, ttypes } from "./databricks-results.js";
import { type DatabricksContext, databricksShapes } from "./databricks-shapes.js";
import { databricksTypeName, toDuckDbSql } from "./databricks-sql.js";
import { type SelfSignedCertificate, selfSignedCertificate } from "./databricks-tls.js";
import { EmulatedVolumes, type StagingAnswer, VOLUME_SHAPES, volumeShapes } from "./databricks-volume.js";

const require = createRequire(import.meta.url);
const thrift = require("thrift") as {
  createWebServer(options: object): { emit(event: "request", ...args: unknown[]): boolean };
  TBinaryProtocol: unknown;
  TBufferedTransport: unknown;
};
const TCLIService = require("@databricks/sql/thrift/TCLIService.js") as unknown;

/** The parts of the driver's Thrift requests the emulator reads. */
interface ThriftRequest {
  readonly sessionHandle?: { readonly sessionId: { readonly guid: Uint8Array } };
  readonly statement?: string;
  readonly parameters?: readonly SparkParameter[] | null;
}

interface SparkParameter {
  readonly name?: string | null;
  readonly value?: { readonly stringValue?: string | null } | null;
}

export interface DatabricksEmulatorOptions {
  /** The Unity Catalog catalog(s) that exist. Default `["sqlload"]`. */
  readonly catalogs?: readonly string[];
  /** The SQL warehouse's HTTP path. Default `/sql/1.0/warehouses/emulator`. */
  readonly httpPath?: string;
  /** The personal access token the warehouse accepts. Default `dapi-emulator`. */
  readonly token?: string;
  /**
   * Whether the warehouse runs `BEGIN ATOMIC` blocks (a runtime with multi-statement
   * transactions). Default true; false answers them with a syntax error, as older runtimes do.
   */
  readonly atomic?: boolean;
  /** The Unity Catalog volumes that exist, as `catalog.schema.volume` (for the bulk path). Default none. */
  readonly volumes?: readonly string[];
}

/** Every statement shape the warehouse understands: the connector's SQL, and the bulk path's. */
const allShapes = [...volumeShapes, ...databricksShapes];

interface SessionState {
  readonly session: EmulatorSession;
}

/** A handle GUID: the driver prints handles as UUIDs and refuses bytes that are not a valid one. */
const guid = () => Buffer.from(randomUUID().replaceAll("-", ""), "hex");

/**
 * A Databricks SQL warehouse as `@databricks/sql` sees it: the driver's own TCLIService Thrift
 * processor over HTTPS (a self-signed certificate the test passes as `customCaCert`), a bearer
 * token check, and one real DuckDB behind it. Every statement runs synchronously and answers
 * with direct results (`COLUMN_BASED_SET`). It enforces what the connector's correctness rests
 * on: `BEGIN ATOMIC … END` lands all or nothing and writes only tables created with
 * catalog-managed commits; `INSERT … REPLACE WHERE` refuses rows outside its predicate; and
 * it rejects every statement shape it does not know. Failures can be injected at any request.
 */
export class DatabricksEmulator {
  readonly failures = new FailureInjector();
  private readonly sessions = new Map<string, SessionState>();
  private readonly context: DatabricksContext = { tablesCreatedCatalogManaged: new Set() };
  /** Bumped by `abandonHeld`: a request held across it is answered with an error and never runs. */
  private epoch = 0;
  /** The Unity Catalog volumes: staged files, presigned URLs, and what COPY INTO loaded where. */
  readonly volumes: EmulatedVolumes;

  private constructor(
    readonly database: EmulatorDatabase,
    private readonly server: Server,
    readonly certificate: SelfSignedCertificate,
    readonly httpPath: string,
    readonly token: string,
    private readonly atomic: boolean,
    volumes: readonly string[],
  ) {
    this.volumes = new EmulatedVolumes(volumes, this.failures, () => `https://127.0.0.1:${this.port}`);
  }

  static async start(options: DatabricksEmulatorOptions = {}): Promise<DatabricksEmulator> {
    const database = await EmulatorDatabase.open();
    for (const catalog of options.catalogs ?? ["sqlload"]) {
      await database.query(`ATTACH ':memory:' AS "${catalog.replaceAll('"', '""')}"`);
    }
    const certificate = selfSignedCertificate();
    const httpPath = options.httpPath ?? "/sql/1.0/warehouses/emulator";
    const token = options.token ?? "dapi-emulator";
    let emulator: DatabricksEmulator | undefined;
    const thriftServer = thrift.createWebServer({
      services: {
        [httpPath]: {
          processor: TCLIService,
          handler: new Proxy(
            {},
            { get: (_t, method: string) => (req: ThriftRequest) => (emulator as DatabricksEmulator).handle(method, req) },
          ),
          protocol: thrift.TBinaryProtocol,
          transport: thrift.TBufferedTransport,
        },
      },
    });
    const server = createServer({ key: certificate.key, cert: certificate.cert }, async (request, response) => {
      // Presigned URLs carry no token: the grant in the URL and its header are the authorization.
      if (await (emulator as DatabricksEmulator).volumes.serve(request, response)) return;
      if (request.headers.authorization !== `Bearer ${token}`) {
        response.writeHead(401, { "content-type": "text/plain" });
        response.end("Invalid access token.");
        return;
      }
      thriftServer.emit("request", request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    emulator = new DatabricksEmulator(
      database,
      server,
      certificate,
      httpPath,
      token,
      options.atomic !== false,
      options.volumes ?? [],
    );
    return emulator;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The `[target]` settings (and driver options) that reach this emulator. */
  get endpoint(): { host: string; port: number; httpPath: string; token: string; caCert: string } {
    return { host: "127.0.0.1", port: this.port, httpPath: this.httpPath, token: this.token, caCert: this.certificate.cert };
  }

  /**
   * Lets held requests go without running them, as a warehouse drops the statements of a client
   * that died before they started. (`failures.releaseHeld()` instead runs them: the statement of
   * a dead client that the warehouse had already accepted.)
   */
  abandonHeld(): void {
    this.epoch++;
    this.failures.releaseHeld();
  }

  async close(): Promise<void> {
    this.abandonHeld();
    this.failures.reset();
    for (const s of this.sessions.values()) s.session.close();
    this.sessions.clear();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    this.database.close();
    this.volumes.close();
  }

  private async handle(method: string, req: ThriftRequest): Promise<unknown> {
    const ok = new ttypes.TStatus({ statusCode: ttypes.TStatusCode.SUCCESS_STATUS });
    switch (method) {
      case "OpenSession": {
        await this.failures.intercept({ protocol: "databricks", operation: "OpenSession", shapes: [] });
        const id = guid();
        this.sessions.set(id.toString("hex"), { session: await this.database.session() });
        return new ttypes.TOpenSessionResp({
          status: ok,
          serverProtocolVersion: ttypes.TProtocolVersion.SPARK_CLI_SERVICE_PROTOCOL_V8,
          sessionHandle: new ttypes.TSessionHandle({ sessionId: new ttypes.THandleIdentifier({ guid: id, secret: guid() }) }),
        });
      }
      case "CloseSession": {
        const key = Buffer.from(req.sessionHandle?.sessionId.guid ?? []).toString("hex");
        const state = this.sessions.get(key);
        if (state) {
          await state.session.rollback().catch(() => undefined);
          state.session.close();
          this.sessions.delete(key);
        }
        return new ttypes.TCloseSessionResp({ status: ok });
      }
      case "ExecuteStatement":
        return this.executeStatement(req);
      case "CloseOperation":
        return new ttypes.TCloseOperationResp({ status: ok });
      case "CancelOperation":
        return new ttypes.TCancelOperationResp({ status: ok });
      case "GetOperationStatus":
        return new ttypes.TGetOperationStatusResp({ status: ok, operationState: ttypes.TOperationState.FINISHED_STATE });
      default:
        throw new Error(`the Databricks emulator does not implement ${method}`);
    }
  }

  private async executeStatement(req: ThriftRequest): Promise<unknown> {
    const state = this.sessions.get(Buffer.from(req.sessionHandle?.sessionId.guid ?? []).toString("hex"));
    try {
      if (!state) throw new EmulatorError("not_found", "[INVALID_HANDLE] the session does not exist");
      const statement = String(req.statement);
      const atomicBody = /^\s*BEGIN\s+ATOMIC\b([\s\S]*?)\bEND\s*;?\s*$/i.exec(statement);
      const matched = atomicBody ? this.atomicStatements(atomicBody[1] as string) : [matchStatement(allShapes, statement)];
      const epoch = this.epoch;
      await this.failures.intercept({
        protocol: "databricks",
        operation: "ExecuteStatement",
        shapes: [...(atomicBody ? ["begin_atomic"] : []), ...matched.map((m) => m.shape.name)],
        statement,
      });
      if (epoch !== this.epoch) throw new EmulatorError("not_found", "[INVALID_HANDLE] the session's client is gone");
      const params = parameters(req.parameters);
      const result = atomicBody
        ? await this.runAtomic(matched, params)
        : await this.runOne(state.session, matched[0] as MatchedStatement<DatabricksContext>, params);
      return "staging" in result ? this.answer(result.result, true) : this.answer(result);
    } catch (error) {
      return new ttypes.TExecuteStatementResp({ status: new ttypes.TStatus(databricksErrorStatus(error)) });
    }
  }

  /** The statements of a `BEGIN ATOMIC` block, refused when the runtime has no transactions or a statement is DDL. */
  private atomicStatements(body: string): MatchedStatement<DatabricksContext>[] {
    if (!this.atomic) {
      throw new EmulatorError("unsupported", "[PARSE_SYNTAX_ERROR] Syntax error at or near 'ATOMIC'. SQLSTATE: 42601");
    }
    const matched = splitStatements(body).map((s) => matchStatement(allShapes, s));
    for (const m of matched) {
      if (VOLUME_SHAPES.has(m.shape.name)) {
        throw new EmulatorError(
          "not_allowed",
          `[TRANSACTION_NOT_SUPPORTED.STATEMENT] ${m.shape.name} cannot run in a transaction. SQLSTATE: 0A000`,
        );
      }
      if (m.shape.kind === "ddl") {
        throw new EmulatorError(
          "not_allowed",
          `[TRANSACTION_NOT_SUPPORTED.DDL] DDL is not supported in a transaction: ${m.shape.name}. SQLSTATE: 0A000`,
        );
      }
      for (const table of m.shape.writes?.(m.match) ?? []) {
        if (!this.context.tablesCreatedCatalogManaged.has(table)) {
          throw new EmulatorError(
            "not_allowed",
            `[TRANSACTION_NOT_SUPPORTED.NON_CATALOG_MANAGED_TABLE] ${table} does not use catalog-managed commits and cannot be written in a transaction. SQLSTATE: 0A000`,
          );
        }
      }
    }
    return matched;
  }

  /**
   * A non-interactive transaction needs no session state, and a warehouse runs a session's
   * statements concurrently: each block gets a DuckDB connection of its own for its transaction.
   */
  private async runAtomic(
    statements: readonly MatchedStatement<DatabricksContext>[],
    params: Record<string, DuckDBValue>,
  ): Promise<StatementResult> {
    const session = await this.database.session();
    try {
      await session.begin();
      let last: StatementResult = { columns: [], rows: [], rowsChanged: 0 };
      try {
        for (const m of statements) last = await this.runMatched(session, m, params);
        await session.commit();
      } catch (error) {
        await session.rollback();
        throw error;
      }
      return last;
    } finally {
      session.close();
    }
  }

  /** One statement on its own: a Delta commit of its own (REPLACE WHERE's delete and insert together). */
  private async runOne(
    session: EmulatorSession,
    m: MatchedStatement<DatabricksContext>,
    params: Record<string, DuckDBValue>,
  ): Promise<StatementResult | StagingAnswer> {
    if (VOLUME_SHAPES.has(m.shape.name)) return this.volumes.run(m.shape.name, m.match, session);
    if (m.shape.name !== "replace_where") return this.runMatched(session, m, params);
    return this.runAtomic([m], params);
  }

  private async runMatched(
    session: EmulatorSession,
    m: MatchedStatement<DatabricksContext>,
    params: Record<string, DuckDBValue>,
  ): Promise<StatementResult> {
    const translation = m.shape.translate(m.match, this.context);
    if (!("sql" in translation)) throw new EmulatorError("unsupported", `${m.shape.name} is not a statement`);
    if (m.shape.name === "replace_where") {
      const source = toDuckDbSql(m.match[4] as string);
      const outside = await session.run(
        `SELECT count(*) FROM ${source} WHERE NOT coalesce((${toDuckDbSql(m.match[2] as string)}), false)`,
        only(params, m.text),
      );
      if (Number(outside.rows[0]?.[0] ?? 0) > 0) {
        throw new EmulatorError(
          "not_allowed",
          "[DELTA_REPLACE_WHERE_MISMATCH] Written data does not conform to partial table overwrite condition or constraint. SQLSTATE: 44000",
        );
      }
    }
    let result: StatementResult = { columns: [], rows: [], rowsChanged: 0 };
    let changed = 0;
    for (const text of translation.sql) {
      result = await session.run(text, only(params, text.replace(/\$([A-Za-z_]\w*)/g, ":$1")));
      changed += result.rowsChanged;
    }
    if (m.shape.name === "drop_table" || m.shape.name === "create_or_replace") {
      this.volumes.forgetTable(toDuckDbSql(m.match[1] as string).toLowerCase());
    }
    if (m.shape.name === "create_table" || m.shape.name === "create_or_replace") {
      const table = toDuckDbSql(m.match[1] as string).toLowerCase();
      if (/'delta\.feature\.catalogManaged'\s*=\s*'supported'/.test(m.match[m.shape.name === "create_table" ? 3 : 2] ?? "")) {
        this.context.tablesCreatedCatalogManaged.add(table);
      } else if (m.shape.name === "create_or_replace") {
        this.context.tablesCreatedCatalogManaged.delete(table);
      }
    }
    if (m.shape.name === "describe_columns") {
      result = {
        ...result,
        rows: result.rows.map((r) => [r[0] ?? null, databricksTypeName(String(r[1])), r[2] ?? null]),
      };
    }
    return { ...result, rowsChanged: changed };
  }

  /** A finished statement with its rows as direct results; `staging` marks a staging operation's answer. */
  private answer(result: StatementResult, staging = false): unknown {
    const ok = new ttypes.TStatus({ statusCode: ttypes.TStatusCode.SUCCESS_STATUS });
    const hasResultSet = result.columns.length > 0;
    const rows: StatementResult = hasResultSet
      ? result
      : {
          columns: [{ name: "num_affected_rows", type: { toString: () => "BIGINT" } as never }] as StatementResult["columns"],
          rows: [[BigInt(result.rowsChanged)]],
          rowsChanged: result.rowsChanged,
        };
    return new ttypes.TExecuteStatementResp({
      status: ok,
      operationHandle: new ttypes.TOperationHandle({
        operationId: new ttypes.THandleIdentifier({ guid: guid(), secret: guid() }),
        operationType: ttypes.TOperationType.EXECUTE_STATEMENT,
        hasResultSet: true,
      }),
      directResults: new ttypes.TSparkDirectResults({
        operationStatus: new ttypes.TGetOperationStatusResp({
          status: ok,
          operationState: ttypes.TOperationState.FINISHED_STATE,
          hasResultSet: true,
        }),
        resultSetMetadata: new ttypes.TGetResultSetMetadataResp({
          status: ok,
          schema: resultSchema(rows),
          resultFormat: ttypes.TSparkRowSetType.COLUMN_BASED_SET,
          ...(staging ? { isStagingOperation: true } : {}),
        }),
        resultSet: new ttypes.TFetchResultsResp({ status: ok, hasMoreRows: false, results: resultRowSet(rows) }),
        closeOperation: new ttypes.TCloseOperationResp({ status: ok }),
      }),
    });
  }
}

/** Named parameters as the driver sends them (`TSparkParameter`): text, or NULL when it has no value. */
function parameters(list: readonly SparkParameter[] | null | undefined): Record<string, DuckDBValue> {
  const out: Record<string, DuckDBValue> = {};
  for (const p of list ?? []) {
    if (!p.name) throw new EmulatorError("unsupported", "the emulator takes named parameters only");
    out[p.name] = p.value?.stringValue ?? null;
  }
  return out;
}

/** The parameters a statement names (DuckDB refuses unused ones). */
function only(params: Record<string, DuckDBValue>, sql: string): Record<string, DuckDBValue> | undefined {
  const used: Record<string, DuckDBValue> = {};
  for (const m of sql.matchAll(/:([A-Za-z_]\w*)/g)) {
    const name = m[1] as string;
    if (name in params) used[name] = params[name] as DuckDBValue;
  }
  return Object.keys(used).length > 0 ? used : undefined;
}
