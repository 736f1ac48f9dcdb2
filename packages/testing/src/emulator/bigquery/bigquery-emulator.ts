import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { DuckDBValue } from "@duckdb/node-api";
import { EmulatorDatabase, type StatementResult } from "../duckdb-executor.js";
import { EmulatorError } from "../emulator-error.js";
import { FailureInjector, type RequestInfo, type RequestMatcher } from "../failure-injection.js";
import { matchStatement, splitStatements } from "../statement-shapes.js";
import { BigQueryCatalog, duckIdent, duckTable, type Field, type TableResource } from "./bigquery-catalog.js";
import { bigqueryShapes, type Translated } from "./bigquery-sql.js";
import { type Cell, encodeCell, fieldOfDuckType, loadValue } from "./bigquery-wire.js";

interface JobRecord {
  readonly resource: Record<string, unknown>;
  readonly fields: readonly Field[];
  readonly rows: readonly Cell[][];
}

type HttpError = Error & { status?: number; reason?: string };

const PAGE = 1000;

/** The `configuration.load` fields the emulator knows; BigQuery refuses unknown ones (labels go in `configuration`). */
const LOAD_KEYS = new Set(["destinationTable", "sourceFormat", "schema", "writeDisposition", "createDisposition"]);

/**
 * An emulator of BigQuery's REST API (v2) on a real DuckDB database, for the official
 * `@google-cloud/bigquery` client: datasets and tables (get, insert, list, patch, delete), query
 * jobs with named parameters and scripts with BEGIN/COMMIT/ROLLBACK TRANSACTION, load jobs from
 * a multipart upload of newline-delimited JSON, job polling and paged `getQueryResults`. It
 * enforces what sqlload depends on: DDL inside a transaction fails, a second open transaction
 * mutating a table aborts, a script that leaves its transaction open fails and rolls back,
 * INT64 travels as strings, `CAST(x AS BYTES)` orders by UTF-8 bytes, tables expire. Jobs run
 * to completion before `jobs.insert` answers; there are no sessions, so no transaction spans
 * two jobs (a load job can never join one). Every statement outside `bigqueryShapes` is
 * rejected. `failures` fails or holds any request.
 */
export class BigQueryEmulator {
  readonly failures = new FailureInjector();
  readonly catalog: BigQueryCatalog;
  private readonly jobs = new Map<string, JobRecord>();
  private server: Server | undefined;
  /** Every job's configuration as received, for assertions (labels, statements). */
  readonly jobLog: Record<string, unknown>[] = [];
  /** Every `tables.insert` body as received: the table definitions (partitioning, clustering) clients send. */
  readonly tableLog: Record<string, unknown>[] = [];
  private readonly lostAnswers: RequestMatcher[] = [];
  private readonly unsent: RequestMatcher[] = [];

  private constructor(readonly database: EmulatorDatabase) {
    this.catalog = new BigQueryCatalog(database);
  }

  static async start(options: { readonly port?: number } = {}): Promise<BigQueryEmulator> {
    const emulator = new BigQueryEmulator(await EmulatorDatabase.open());
    await emulator.listen(options.port ?? 0);
    return emulator;
  }

  /**
   * Runs the next matching `jobs.insert` to completion, then answers 503 as if the answer were
   * lost on the way: the client cannot tell whether the job started (see how it retries).
   */
  loseNextAnswer(match: RequestMatcher): void {
    this.lostAnswers.push(match);
  }

  /**
   * Holds the next matching `jobs.insert` like `failures.holdNext`; once released, it runs only
   * if its client is still there. A client killed while it was held counts as one that died
   * before sending it: the job never runs (the other side of `loseNextAnswer`).
   */
  holdNextUnsent(match: RequestMatcher): Promise<RequestInfo> {
    this.unsent.push(match);
    return this.failures.holdNext(match);
  }

  get endpoint(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  private listen(port: number): Promise<void> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error) => this.fail(res, error));
    });
    return new Promise((resolve) => this.server?.listen(port, "127.0.0.1", () => resolve()));
  }

  async stop(): Promise<void> {
    this.failures.reset();
    await new Promise<void>((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
    this.database.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const body = await readBody(req);
    if (!/^Bearer \S+/.test(String(req.headers.authorization ?? ""))) {
      throw Object.assign(new Error("Request is missing required authentication credential."), {
        status: 401,
        reason: "unauthorized",
      });
    }
    const path = url.pathname.replace(/^\/upload/, "").replace(/^\/bigquery\/v2/, "");
    const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
    const method = req.method ?? "GET";
    const [, project, collection, id, sub, tableId] = parts as (string | undefined)[];
    if (parts[0] !== "projects" || !project) throw notFound(`no route ${method} ${url.pathname}`);

    if (collection === "jobs" && method === "POST" && url.pathname.startsWith("/upload")) {
      return this.send(res, await this.upload(project, req, body));
    }
    if (collection === "jobs" && method === "POST" && !id) {
      const job = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
      return this.send(res, await this.insertJob(project, job, () => req.socket.destroyed));
    }
    if (collection === "jobs" && id && method === "GET") {
      await this.failures.intercept({ protocol: "bigquery", operation: "jobs.get", shapes: [] });
      return this.send(res, this.job(id).resource);
    }
    if (collection === "queries" && id && method === "GET") {
      await this.failures.intercept({ protocol: "bigquery", operation: "jobs.getQueryResults", shapes: [] });
      return this.send(res, this.results(id, url.searchParams));
    }
    if (collection === "datasets") return this.datasets(res, method, project, id, sub, tableId, body);
    throw notFound(`no route ${method} ${url.pathname}`);
  }

  private async datasets(
    res: ServerResponse,
    method: string,
    project: string,
    dataset: string | undefined,
    sub: string | undefined,
    table: string | undefined,
    body: Buffer,
  ): Promise<void> {
    const json = () => JSON.parse(body.toString("utf8") || "{}");
    const op = (name: string) => this.failures.intercept({ protocol: "bigquery", operation: name, shapes: [] });
    if (!dataset && method === "POST") {
      await op("datasets.insert");
      const b = json();
      return this.send(
        res,
        await this.catalog.createDataset(project, b.datasetReference?.datasetId, b.location ?? "US", b.defaultCollation),
      );
    }
    if (!dataset) throw notFound("no dataset");
    if (!sub && method === "GET") {
      await op("datasets.get");
      const found = this.catalog.dataset(dataset);
      if (!found) throw notFound(`Not found: Dataset ${project}:${dataset}`);
      return this.send(res, found);
    }
    if (sub !== "tables") throw notFound("no route");
    if (!table && method === "POST") {
      await op("tables.insert");
      const definition = json();
      this.tableLog.push(definition);
      return this.send(res, await this.catalog.create(project, dataset, definition));
    }
    if (!table && method === "GET") {
      await op("tables.list");
      const tables = await this.catalog.list(dataset);
      return this.send(res, {
        tables: tables.map((t) => ({
          tableReference: t.tableReference,
          id: `${project}:${dataset}.${t.tableReference.tableId}`,
        })),
        totalItems: tables.length,
      });
    }
    if (!table) throw notFound("no route");
    if (method === "GET") {
      await op("tables.get");
      return this.send(res, await this.catalog.requireTable(dataset, table));
    }
    if (method === "PATCH" || method === "PUT") {
      await op("tables.patch");
      const b = json();
      return this.send(res, await this.catalog.patchSchema(dataset, table, b.schema?.fields ?? []));
    }
    if (method === "DELETE") {
      await op("tables.delete");
      if (!(await this.catalog.drop(dataset, table))) throw notFound(`Not found: Table ${project}:${dataset}.${table}`);
      return this.send(res, {});
    }
    throw notFound("no route");
  }

  /** `jobs.insert` of a query job: validated statement by statement first, then run to completion. */
  private async insertJob(
    project: string,
    job: Record<string, unknown>,
    clientGone: () => boolean,
  ): Promise<Record<string, unknown>> {
    const configuration = (job.configuration ?? {}) as Record<string, unknown>;
    const query = configuration.query as { query?: string; queryParameters?: unknown[] } | undefined;
    const reference = { projectId: project, jobId: randomUUID(), location: "US", ...((job.jobReference ?? {}) as object) } as {
      jobId: string;
      location: string;
    };
    if (!query?.query)
      throw Object.assign(new Error("the emulator runs query and load jobs only"), { status: 400, reason: "invalid" });
    let matched: { shape: (typeof bigqueryShapes)[number]; match: RegExpExecArray }[] = [];
    let parseError: unknown;
    try {
      matched = splitStatements(query.query).map((s) => matchStatement(bigqueryShapes, s) as unknown as (typeof matched)[number]);
    } catch (error) {
      parseError = error;
    }
    // An injected failure with an HTTP status fails the request; one without fails the job.
    const injected = await jobFailure(
      this.failures.intercept({
        protocol: "bigquery",
        operation: "jobs.insert",
        shapes: matched.map((m) => m.shape.name),
        statement: query.query,
      }),
    );
    const unsent = this.unsent.findIndex((match) =>
      match({ protocol: "bigquery", operation: "jobs.insert", shapes: matched.map((m) => m.shape.name) }),
    );
    if (unsent >= 0) {
      this.unsent.splice(unsent, 1);
      if (clientGone()) throw new Error("the client hung up before its request was sent; the job never ran");
    }
    if (this.jobs.has(reference.jobId)) {
      throw Object.assign(new Error(`Already Exists: Job ${project}:${reference.jobId}`), { status: 409, reason: "duplicate" });
    }
    this.jobLog.push(configuration);
    const base = {
      kind: "bigquery#job",
      id: `${project}:${reference.location}.${reference.jobId}`,
      jobReference: reference,
      configuration,
    };
    let record: JobRecord;
    try {
      if (injected) throw injected;
      if (parseError) throw parseError;
      const params = parameters(query.queryParameters ?? []);
      // A dry run checks every statement (shapes and expressions) and runs none.
      if (configuration.dryRun) for (const m of matched) m.shape.translateBq(m.match);
      const result = configuration.dryRun ? { fields: [], rows: [] } : await this.runScript(matched, params);
      record = {
        resource: {
          ...base,
          status: { state: "DONE" },
          statistics: {
            totalBytesProcessed: "0",
            // The emulator does not model what BigQuery bills: every job, a dry run too, scanned 0 bytes.
            query: { totalBytesProcessed: "0" },
          },
        },
        ...result,
      };
    } catch (error) {
      const e = error as HttpError;
      // BigQuery reports a failed query, a concurrent-update abort included, under `invalidQuery`.
      const reason = e.reason ?? "invalidQuery";
      const errorResult = { reason, message: e.message, location: "query" };
      record = { resource: { ...base, status: { state: "DONE", errorResult, errors: [errorResult] } }, fields: [], rows: [] };
    }
    this.jobs.set(reference.jobId, record);
    const info = { protocol: "bigquery", operation: "jobs.insert", shapes: matched.map((m) => m.shape.name) };
    const lost = this.lostAnswers.findIndex((match) => match(info));
    if (lost >= 0) {
      this.lostAnswers.splice(lost, 1);
      throw Object.assign(new Error("The service is currently unavailable."), { status: 503, reason: "backendError" });
    }
    return record.resource;
  }

  private async runScript(
    matched: readonly { shape: (typeof bigqueryShapes)[number]; match: RegExpExecArray }[],
    params: Record<string, DuckDBValue>,
  ): Promise<{ fields: Field[]; rows: Cell[][] }> {
    const session = await this.database.session();
    let last: { fields: Field[]; rows: Cell[][] } = { fields: [], rows: [] };
    try {
      for (const { shape, match } of matched) {
        const translated: Translated = shape.translateBq(match);
        const action = shape.kind === "transaction" ? shape.translate(match, undefined) : undefined;
        if (action && "action" in action) {
          if (action.action === "begin") await session.begin();
          else if (action.action === "commit") await session.commit();
          else await session.rollback();
          continue;
        }
        for (const t of translated.tables) await this.catalog.requireTable(t.dataset, t.table);
        if (translated.copy) {
          if (session.inTransaction) {
            throw new EmulatorError(
              "not_allowed",
              "CREATE TABLE statements on permanent tables are not supported inside transactions",
            );
          }
          await this.catalog.copy(
            session,
            translated.copy.to.dataset,
            translated.copy.to.table,
            translated.copy.from.dataset,
            translated.copy.from.table,
          );
          continue;
        }
        for (const written of shape.writes?.(match) ?? []) session.claim(written);
        for (const sql of translated.sql) {
          const result = await runWithConflicts(session, sql, usedParams(sql, params));
          if (shape.kind === "query") last = await this.encodeResult(result, translated.selectAll);
        }
      }
      if (session.inTransaction) {
        await session.rollback();
        throw new EmulatorError(
          "not_allowed",
          "Transaction was not committed or rolled back at the end of the script; it was rolled back",
        );
      }
      return last;
    } finally {
      session.close();
    }
  }

  private async encodeResult(
    result: StatementResult,
    table?: { dataset: string; table: string },
  ): Promise<{ fields: Field[]; rows: Cell[][] }> {
    const own = table ? (await this.catalog.requireTable(table.dataset, table.table)).schema.fields : undefined;
    const fields = own ?? result.columns.map((c) => fieldOfDuckType(c.name, c.type));
    return { fields, rows: result.rows.map((row) => row.map((value, i) => encodeCell(fields[i] as Field, value))) };
  }

  private job(id: string): JobRecord {
    const job = this.jobs.get(id);
    if (!job) throw notFound(`Not found: Job ${id}`);
    return job;
  }

  /** `getQueryResults`, paged by `maxResults` and `pageToken` (the row offset). */
  private results(id: string, query: URLSearchParams): Record<string, unknown> {
    const job = this.job(id);
    const status = job.resource.status as { errorResult?: { reason: string; message: string } };
    if (status.errorResult)
      throw Object.assign(new Error(status.errorResult.message), { status: 400, reason: status.errorResult.reason });
    const start = Number(query.get("pageToken") ?? query.get("startIndex") ?? 0);
    const size = Math.min(Number(query.get("maxResults") ?? PAGE), PAGE);
    const rows = job.rows.slice(start, start + size).map((f) => ({ f }));
    const next = start + size < job.rows.length ? String(start + size) : undefined;
    return {
      kind: "bigquery#getQueryResultsResponse",
      jobReference: job.resource.jobReference,
      jobComplete: true,
      schema: { fields: job.fields },
      totalRows: String(job.rows.length),
      rows,
      ...(next ? { pageToken: next } : {}),
    };
  }

  /** A load job from a multipart upload: metadata, then newline-delimited JSON rows appended in one statement. */
  private async upload(project: string, req: IncomingMessage, body: Buffer): Promise<Record<string, unknown>> {
    const { metadata, media } = multipart(String(req.headers["content-type"] ?? ""), body);
    const injected = await jobFailure(this.failures.intercept({ protocol: "bigquery", operation: "upload", shapes: ["load"] }));
    const configuration = (metadata.configuration ?? {}) as { load?: Record<string, unknown> };
    this.jobLog.push(configuration);
    const load = configuration.load ?? {};
    const reference = {
      projectId: project,
      jobId: randomUUID(),
      location: "US",
      ...((metadata.jobReference ?? {}) as object),
    } as { jobId: string };
    const base = { kind: "bigquery#job", jobReference: reference, configuration };
    let resource: Record<string, unknown>;
    try {
      if (injected) throw injected;
      for (const key of Object.keys(load)) {
        if (!LOAD_KEYS.has(key))
          throw new EmulatorError(
            "not_allowed",
            `Invalid JSON payload received. Unknown name "${key}" at 'job.configuration.load'`,
          );
      }
      if (load.sourceFormat !== "NEWLINE_DELIMITED_JSON") {
        throw new EmulatorError(
          "unsupported",
          `the emulator loads NEWLINE_DELIMITED_JSON only, not ${String(load.sourceFormat)}`,
        );
      }
      if (load.writeDisposition !== "WRITE_APPEND")
        throw new EmulatorError("unsupported", "the emulator loads with WRITE_APPEND only");
      const destination = load.destinationTable as { datasetId: string; tableId: string };
      const table = await this.catalog.requireTable(destination.datasetId, destination.tableId);
      const rows = media
        .toString("utf8")
        .split("\n")
        .filter((line) => line.trim() !== "");
      await this.appendRows(
        table,
        rows.map((line) => JSON.parse(line) as Record<string, unknown>),
      );
      resource = { ...base, status: { state: "DONE" }, statistics: { load: { outputRows: String(rows.length) } } };
    } catch (error) {
      const errorResult = { reason: (error as HttpError).reason ?? "invalid", message: (error as Error).message };
      resource = { ...base, status: { state: "DONE", errorResult, errors: [errorResult] } };
    }
    this.jobs.set(reference.jobId, { resource, fields: [], rows: [] });
    return resource;
  }

  /** Appends rows atomically (all or none, as a load job does), every value cast from text by DuckDB. */
  private async appendRows(table: TableResource, rows: readonly Record<string, unknown>[]): Promise<void> {
    const fields = table.schema.fields;
    const known = new Set(fields.map((f) => f.name));
    const session = await this.database.session();
    try {
      await session.begin();
      const target = duckTable(table.tableReference.datasetId, table.tableReference.tableId);
      const columns = fields.map((f) => duckIdent(f.name)).join(", ");
      for (let start = 0; start < rows.length; start += 200) {
        const params: (string | null)[] = [];
        const tuples: string[] = [];
        for (const row of rows.slice(start, start + 200)) {
          for (const key of Object.keys(row)) {
            if (!known.has(key))
              throw new EmulatorError("not_allowed", `JSON table encountered too many errors: no such field: ${key}`);
          }
          const values = fields.map((field) => {
            const { sql, param } = loadValue(field, row[field.name]);
            params.push(param);
            return sql(`$${params.length}`);
          });
          tuples.push(`(${values.join(", ")})`);
        }
        await session.run(`INSERT INTO ${target} (${columns}) VALUES ${tuples.join(", ")}`, params);
      }
      await session.commit();
    } finally {
      session.close();
    }
  }

  private send(res: ServerResponse, value: unknown): void {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(value));
  }

  private fail(res: ServerResponse, error: unknown): void {
    const e = error as HttpError;
    const status = e.status ?? (e instanceof EmulatorError && e.kind === "not_found" ? 404 : 400);
    const reason = e.reason ?? (status === 404 ? "notFound" : "invalid");
    if (res.headersSent) return void res.end();
    res.writeHead(status, { "content-type": "application/json" });
    res.end(
      JSON.stringify({ error: { code: status, message: e.message, errors: [{ reason, message: e.message }], status: reason } }),
    );
  }
}

/** Waits for the failure injector: rethrows a failure with an HTTP status, returns one without (a job's failure). */
async function jobFailure(intercepted: Promise<void>): Promise<HttpError | undefined> {
  try {
    await intercepted;
    return undefined;
  } catch (error) {
    if ((error as HttpError).status !== undefined) throw error;
    return error as HttpError;
  }
}

function notFound(message: string): HttpError {
  return Object.assign(new Error(message), { status: 404, reason: "notFound" });
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** The two parts of a `multipart/related` upload: the job's JSON metadata, then the media. */
function multipart(contentType: string, body: Buffer): { metadata: Record<string, unknown>; media: Buffer } {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (!boundary) throw new EmulatorError("unsupported", `the emulator takes multipart uploads only (got ${contentType})`);
  const delimiter = Buffer.from(`--${boundary}`);
  const pieces: Buffer[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const next = body.indexOf(delimiter, at + delimiter.length);
    if (next < 0) break;
    pieces.push(body.subarray(at + delimiter.length, next));
    at = next;
  }
  const content = (piece: Buffer) => {
    const split = piece.indexOf("\r\n\r\n");
    return piece.subarray(split + 4, piece.length - 2);
  };
  const [meta, media] = pieces;
  if (!meta || !media) throw new EmulatorError("unsupported", "a multipart upload needs a metadata part and a media part");
  return { metadata: JSON.parse(content(meta).toString("utf8")) as Record<string, unknown>, media: content(media) };
}

/** Named query parameters as DuckDB values: INT64 as bigint (exact), the rest as their text. */
function parameters(list: readonly unknown[]): Record<string, DuckDBValue> {
  const out: Record<string, DuckDBValue> = {};
  for (const item of list as { name: string; parameterType: { type: string }; parameterValue?: { value?: string } }[]) {
    const value = item.parameterValue?.value;
    if (value === undefined) out[item.name] = null;
    else if (item.parameterType.type === "INT64") out[item.name] = BigInt(value);
    else if (item.parameterType.type === "BOOL") out[item.name] = value === "true";
    else out[item.name] = value;
  }
  return out;
}

function usedParams(sql: string, params: Record<string, DuckDBValue>): Record<string, DuckDBValue> | undefined {
  const used: Record<string, DuckDBValue> = {};
  for (const m of sql.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const name = m[1] as string;
    if (!(name in params)) throw new EmulatorError("not_allowed", `Query parameter '${name}' not found`);
    used[name] = params[name] as DuckDBValue;
  }
  return Object.keys(used).length > 0 ? used : undefined;
}

/** DuckDB's own write-write conflict reads, to the client, as BigQuery's concurrent-update abort. */
async function runWithConflicts(
  session: Awaited<ReturnType<EmulatorDatabase["session"]>>,
  sql: string,
  params?: Record<string, DuckDBValue>,
) {
  try {
    return await session.run(sql, params);
  } catch (error) {
    if (/conflict/i.test((error as Error).message)) {
      throw new EmulatorError("conflict", `Transaction is aborted due to concurrent update: ${(error as Error).message}`);
    }
    throw error;
  }
}
