import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EmulatorSession, StatementResult } from "../duckdb-executor.js";
import { EmulatorError } from "../emulator-error.js";
import type { FailureInjector } from "../failure-injection.js";
import type { StatementShape } from "../statement-shapes.js";
import type { DatabricksContext } from "./databricks-shapes.js";
import { toDuckDbSql } from "./databricks-sql.js";

/** A Databricks STRING literal: `'…'` with backslash escapes (the connector's paths). */
const LIT = "'((?:[^'\\\\]|\\\\.)*)'";
const N = "`(?:[^`]|``)+`";

/** The bulk path's statements: staging operations on a volume, the listing, and COPY INTO. */
export const volumeShapes: readonly StatementShape<DatabricksContext>[] = [
  {
    name: "staging_put",
    kind: "dml",
    pattern: new RegExp(`^PUT ${LIT} INTO ${LIT}( OVERWRITE)?$`),
    translate: () => ({ sql: [] }),
  },
  { name: "staging_remove", kind: "dml", pattern: new RegExp(`^REMOVE ${LIT}$`), translate: () => ({ sql: [] }) },
  { name: "list_volume", kind: "query", pattern: new RegExp(`^LIST ${LIT}$`), translate: () => ({ sql: [] }) },
  {
    name: "copy_into",
    kind: "dml",
    pattern: new RegExp(`^COPY INTO (${N}\\.${N}\\.${N}) FROM ${LIT} FILEFORMAT = PARQUET FILES = \\(((?:${LIT}(?:, )?)+)\\)$`),
    translate: () => ({ sql: [] }),
    writes: (m) => [toDuckDbSql(m[1] as string).toLowerCase()],
  },
];

export const VOLUME_SHAPES = new Set(volumeShapes.map((s) => s.name));

const unquote = (text: string) => text.replace(/\\(.)/g, "$1");

/** A presigned URL's one-time grant: which operation on which volume file, and the header it must carry. */
interface Grant {
  readonly method: "PUT" | "DELETE";
  readonly path: string;
  readonly header: string;
}

interface StoredFile {
  readonly local: string;
  readonly size: number;
  readonly modified: number;
}

/** A staging operation's answer: the row the driver reads (`operation`, `presignedUrl`, `localFile`, `headers`). */
export interface StagingAnswer {
  readonly staging: true;
  readonly result: StatementResult;
}

const text = (name: string) => ({ name, type: { toString: () => "VARCHAR" } as never });
const map = (name: string) => ({ name, type: { toString: () => "MAP(VARCHAR, VARCHAR)" } as never });

/**
 * Unity Catalog volumes as the bulk path meets them. `PUT` and `REMOVE` are staging operations:
 * the warehouse answers with a presigned URL (served by the emulator's own HTTPS server, valid
 * once, and only with the header it handed out) and the driver moves the file itself. `LIST`
 * lists a folder. `COPY INTO` loads Parquet files into a table by column name, refusing files
 * that are missing or whose columns the table lacks or types differ, and skipping, as Databricks
 * does, every file already loaded into that table (a table dropped or replaced forgets them).
 * Failures can be injected at the upload and removal requests (`operation` `volume_put`,
 * `volume_delete`) as at any statement.
 */
export class EmulatedVolumes {
  private readonly dir = mkdtempSync(join(tmpdir(), "sqlload-databricks-volumes-"));
  private readonly files = new Map<string, StoredFile>();
  private readonly loaded = new Map<string, Set<string>>();
  private readonly grants = new Map<string, Grant>();

  constructor(
    private readonly volumes: readonly string[],
    private readonly failures: FailureInjector,
    private readonly baseUrl: () => string,
  ) {}

  /** The volume files now stored, by path (for assertions). */
  get paths(): string[] {
    return [...this.files.keys()].sort();
  }

  /** Forgets the files loaded into a table that was dropped or replaced. */
  forgetTable(table: string): void {
    this.loaded.delete(table);
  }

  async run(name: string, match: RegExpExecArray, session: EmulatorSession): Promise<StatementResult | StagingAnswer> {
    switch (name) {
      case "staging_put": {
        const path = this.volumePath(unquote(match[2] as string));
        if (!match[3] && this.files.has(path)) {
          throw new EmulatorError(
            "not_allowed",
            `[FILE_ALREADY_EXISTS] ${path} exists; PUT without OVERWRITE does not replace it`,
          );
        }
        return this.grant("PUT", path, unquote(match[1] as string));
      }
      case "staging_remove":
        return this.grant("DELETE", this.volumePath(unquote(match[1] as string)));
      case "list_volume":
        return this.list(this.volumePath(unquote(match[1] as string)));
      case "copy_into":
        return this.copyInto(match, session);
      default:
        throw new EmulatorError("unsupported", `${name} is not a volume statement`);
    }
  }

  /** The presigned URL's requests; true when the request was one. */
  async serve(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const token = /^\/__volume\/([0-9a-f-]+)$/.exec(request.url ?? "")?.[1];
    if (!token) return false;
    const grant = this.grants.get(token);
    if (!grant || grant.method !== request.method || request.headers["x-sqlload-grant"] !== grant.header) {
      request.resume();
      response.writeHead(403).end("AuthorizationFailure: the presigned URL is not valid for this request");
      return true;
    }
    this.grants.delete(token);
    try {
      await this.failures.intercept({
        protocol: "databricks",
        operation: grant.method === "PUT" ? "volume_put" : "volume_delete",
        shapes: [],
        statement: grant.path,
      });
    } catch (error) {
      request.resume();
      response.writeHead((error as { status?: number }).status ?? 503).end((error as Error).message);
      return true;
    }
    if (grant.method === "DELETE") {
      const file = this.files.get(grant.path);
      this.files.delete(grant.path);
      if (file) rmSync(file.local, { force: true });
      response.writeHead(file ? 200 : 404).end();
      return true;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (Number(request.headers["content-length"]) !== body.length) {
      response.writeHead(400).end("the body's length is not its Content-Length");
      return true;
    }
    const local = join(this.dir, `${randomUUID()}.parquet`);
    writeFileSync(local, body);
    const old = this.files.get(grant.path);
    if (old) rmSync(old.local, { force: true });
    this.files.set(grant.path, { local, size: body.length, modified: Date.now() });
    response.writeHead(200).end();
    return true;
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** A `/Volumes/<catalog>/<schema>/<volume>/…` path of a volume that exists (`dbfs:` accepted). */
  private volumePath(path: string): string {
    const plain = path.replace(/^dbfs:/, "").replace(/\/+$/, "");
    const parts = /^\/Volumes\/([^/]+)\/([^/]+)\/([^/]+)(\/.*)?$/.exec(plain);
    if (!parts || !this.volumes.includes(`${parts[1]}.${parts[2]}.${parts[3]}`)) {
      throw new EmulatorError("not_found", `[UC_VOLUME_NOT_FOUND] the volume of ${path} does not exist. SQLSTATE: 42704`);
    }
    return plain;
  }

  private grant(method: Grant["method"], path: string, localFile?: string): StagingAnswer {
    const token = randomUUID();
    const header = randomUUID();
    this.grants.set(token, { method, path, header });
    const columns = [
      text("operation"),
      text("presignedUrl"),
      ...(localFile !== undefined ? [text("localFile")] : []),
      map("headers"),
    ];
    const row = [
      method === "PUT" ? "PUT" : "REMOVE",
      `${this.baseUrl()}/__volume/${token}`,
      ...(localFile !== undefined ? [localFile] : []),
      JSON.stringify({ "x-sqlload-grant": header }),
    ];
    return { staging: true, result: { columns, rows: [row], rowsChanged: 0 } };
  }

  private list(folder: string): StatementResult {
    const prefix = `${folder}/`;
    const inside = [...this.files].filter(([path]) => path.startsWith(prefix) && !path.slice(prefix.length).includes("/"));
    if (inside.length === 0) {
      throw new EmulatorError("not_found", `[PATH_NOT_FOUND] Path does not exist: ${folder}. SQLSTATE: 42K03`);
    }
    return {
      columns: [
        text("path"),
        text("name"),
        { name: "size", type: { toString: () => "BIGINT" } as never },
        { name: "modification_time", type: { toString: () => "BIGINT" } as never },
      ],
      rows: inside.map(([path, f]) => [path, path.slice(prefix.length), BigInt(f.size), BigInt(f.modified)]),
      rowsChanged: 0,
    };
  }

  private async copyInto(match: RegExpExecArray, session: EmulatorSession): Promise<StatementResult> {
    const table = toDuckDbSql(match[1] as string);
    const key = table.toLowerCase();
    const folder = this.volumePath(unquote(match[2] as string));
    const names = [...(match[3] as string).matchAll(new RegExp(LIT, "g"))].map((m) => unquote(m[1] as string));
    const loaded = this.loaded.get(key) ?? new Set<string>();
    const fresh: { path: string; local: string }[] = [];
    for (const name of names) {
      const path = `${folder}/${name}`;
      const file = this.files.get(path);
      if (!file) throw new EmulatorError("not_found", `[PATH_NOT_FOUND] Path does not exist: ${path}. SQLSTATE: 42K03`);
      if (!loaded.has(path)) fresh.push({ path, local: file.local });
    }
    let inserted = 0;
    if (fresh.length > 0) {
      // The emulator's own temporary paths: a literal list is safe, and DuckDB needs no list parameter type.
      const list = `[${fresh.map((f) => `'${f.local.replaceAll("'", "''")}'`).join(", ")}]`;
      await this.checkColumns(session, table, list);
      const result = await session.run(`INSERT INTO ${table} BY NAME SELECT * FROM read_parquet(${list})`);
      inserted = result.rowsChanged;
      for (const f of fresh) loaded.add(f.path);
      this.loaded.set(key, loaded);
    }
    const bigint = (name: string) => ({ name, type: { toString: () => "BIGINT" } as never });
    return {
      columns: [bigint("num_affected_rows"), bigint("num_inserted_rows"), bigint("num_skipped_corrupt_files")],
      rows: [[BigInt(inserted), BigInt(inserted), 0n]],
      rowsChanged: inserted,
    };
  }

  /** Every file column is a table column of the same type (no schema merging, no silent casts). */
  private async checkColumns(session: EmulatorSession, table: string, list: string): Promise<void> {
    const file = await session.run(`DESCRIBE SELECT * FROM read_parquet(${list})`);
    const target = await session.run(`DESCRIBE ${table}`);
    const types = new Map(target.rows.map((r) => [String(r[0]).toLowerCase(), String(r[1])]));
    for (const [name, type] of file.rows.map((r) => [String(r[0]), String(r[1])] as const)) {
      const want = types.get(name.toLowerCase());
      if (want === undefined) {
        throw new EmulatorError(
          "not_allowed",
          `[COPY_INTO_SCHEMA_MISMATCH] the file column ${name} is not a column of ${table}. SQLSTATE: 42000`,
        );
      }
      if (want !== type) {
        throw new EmulatorError(
          "not_allowed",
          `[DELTA_FAILED_TO_MERGE_FIELDS] the file column ${name} is ${type}, the table's is ${want}. SQLSTATE: 22005`,
        );
      }
    }
  }
}
