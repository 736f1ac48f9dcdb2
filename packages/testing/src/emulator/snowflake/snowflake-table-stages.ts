import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EmulatorSession } from "../duckdb-executor.js";
import { EmulatorError } from "../emulator-error.js";

const IDENT = '"(?:[^"]|"")+"';

/**
 * The one CSV file format the emulator loads: what sqlload's connector sends (every value
 * enclosed, NULL the unenclosed empty field, no NULL_IF, no escapes, no trimming). Any other
 * format is rejected rather than read with rules that might differ from Snowflake's.
 */
const CSV_FORMAT =
  "TYPE = CSV COMPRESSION = GZIP FIELD_DELIMITER = ',' FIELD_OPTIONALLY_ENCLOSED_BY = '\"' ESCAPE = NONE ESCAPE_UNENCLOSED_FIELD = NONE EMPTY_FIELD_AS_NULL = TRUE NULL_IF = () TRIM_SPACE = FALSE SKIP_HEADER = 0 ERROR_ON_COLUMN_COUNT_MISMATCH = TRUE REPLACE_INVALID_CHARACTERS = FALSE ENCODING = 'UTF8'";

const PUT = new RegExp(
  `^PUT 'file://([^']+)' @(${IDENT})\\.%(${IDENT}) AUTO_COMPRESS = FALSE SOURCE_COMPRESSION = GZIP OVERWRITE = TRUE$`,
  "i",
);
const COPY = new RegExp(
  `^COPY INTO (${IDENT})\\.(${IDENT}) FROM @(${IDENT})\\.%(${IDENT}) FILES = \\(('(?:[^']|'')+'(?:, '(?:[^']|'')+')*)\\) FILE_FORMAT = \\((.+)\\) ON_ERROR = ABORT_STATEMENT PURGE = TRUE( FORCE = TRUE)?$`,
  "is",
);

export type StageStatement =
  | { readonly shape: "put"; readonly table: string; readonly source: string }
  | { readonly shape: "copy"; readonly table: string; readonly files: readonly string[]; readonly force: boolean };

const unquote = (ident: string) => ident.slice(1, -1).replaceAll('""', '"');

/** A PUT or COPY INTO statement of the shapes the connector sends; `undefined` for any other statement. */
export function matchStageStatement(sqlText: string): StageStatement | undefined {
  const text = sqlText.trim().replace(/;\s*$/, "");
  if (/^PUT\s/i.test(text)) {
    const m = PUT.exec(text);
    if (!m) throw new EmulatorError("unsupported", `the emulator does not understand this PUT: ${text.slice(0, 300)}`);
    return { shape: "put", table: `${m[2]}.${m[3]}`, source: m[1] as string };
  }
  if (/^COPY\s/i.test(text)) {
    const m = COPY.exec(text);
    if (!m) throw new EmulatorError("unsupported", `the emulator does not understand this COPY: ${text.slice(0, 300)}`);
    if (`${m[1]}.${m[2]}` !== `${m[3]}.${m[4]}`)
      throw new EmulatorError("unsupported", "the emulator loads a table from its own table stage only");
    if (m[6] !== CSV_FORMAT) throw new EmulatorError("unsupported", `the emulator does not load FILE_FORMAT = (${m[6]})`);
    const files = [...(m[5] as string).matchAll(/'((?:[^']|'')+)'/g)].map((f) => (f[1] as string).replaceAll("''", "'"));
    return { shape: "copy", table: `${m[1]}.${m[2]}`, files, force: Boolean(m[7]) };
  }
  return undefined;
}

/** What a COPY INTO answers: one row per file, as Snowflake's result columns. */
export interface CopyFileResult {
  readonly file: string;
  readonly status: "LOADED";
  readonly rowsParsed: number;
  readonly rowsLoaded: number;
}

/**
 * Snowflake's table stages (`@schema.%table`), as LOCAL_FS stages: a folder per table that the
 * driver's own file transfer agent copies PUT files into, and COPY INTO's load metadata — a file
 * whose name and contents a table already loaded is skipped unless FORCE = TRUE, as Snowflake
 * skips it for 64 days. A table's stage and metadata go when the table is dropped.
 */
export class TableStages {
  private readonly root = mkdtempSync(join(tmpdir(), "sqlload-snowflake-emulator-stages-"));
  private readonly loaded = new Map<string, Map<string, string>>();

  /** The folder of a table's stage. */
  folder(table: string): string {
    return join(this.root, createHash("sha256").update(table).digest("hex").slice(0, 32));
  }

  /**
   * What Snowflake answers a PUT with, as far as snowflake-sdk reads it: the command, the source
   * files, compression, and where the stage is (LOCAL_FS: a folder; the real service answers S3,
   * AZURE or GCS with credentials and encryption material). The upload itself is the driver's.
   */
  async put(session: EmulatorSession, statement: Extract<StageStatement, { shape: "put" }>) {
    await requireTable(session, statement.table);
    const location = this.folder(statement.table);
    mkdirSync(location, { recursive: true });
    return {
      command: "UPLOAD",
      src_locations: [statement.source],
      autoCompress: false,
      sourceCompression: "gzip",
      parallel: 1,
      overwrite: true,
      clientShowEncryptionParameter: false,
      encryptionMaterial: null,
      stageInfo: {
        locationType: "LOCAL_FS",
        location: `${location}/`,
        path: "",
        region: null,
        creds: {},
        isClientSideEncrypted: false,
      },
    };
  }

  /**
   * COPY INTO with ON_ERROR = ABORT_STATEMENT: every file read by DuckDB's CSV reader in one
   * transaction, so one bad value loads nothing; files already loaded skipped (unless FORCE); the
   * loaded files removed after (PURGE = TRUE).
   */
  async copy(session: EmulatorSession, statement: Extract<StageStatement, { shape: "copy" }>): Promise<CopyFileResult[]> {
    const columns = await requireTable(session, statement.table);
    const folder = this.folder(statement.table);
    const metadata = this.loaded.get(statement.table) ?? new Map<string, string>();
    const todo: { name: string; path: string; digest: string }[] = [];
    for (const name of statement.files) {
      const path = join(folder, name);
      if (name.includes("/") || !existsSync(path)) {
        throw new Error(`Remote file '${name}' was not found. The file may have been removed, or the path is wrong.`);
      }
      const digest = createHash("md5").update(readFileSync(path)).digest("hex");
      if (!statement.force && metadata.get(name) === digest) continue;
      todo.push({ name, path, digest });
    }
    const results: CopyFileResult[] = [];
    if (todo.length === 0) return results;
    const own = !session.inTransaction;
    if (own) await session.begin();
    try {
      for (const file of todo) {
        const { rowsChanged } = await session.run(
          `INSERT INTO ${statement.table} SELECT * FROM read_csv('${file.path.replaceAll("'", "''")}', columns = {${columns.map((_, i) => `'c${i}': 'VARCHAR'`).join(", ")}}, header = false, delim = ',', quote = '"', escape = '"', compression = 'gzip', auto_detect = false, allow_quoted_nulls = false, strict_mode = true, null_padding = false, new_line = '\\n')`,
        );
        results.push({ file: file.name, status: "LOADED", rowsParsed: rowsChanged, rowsLoaded: rowsChanged });
      }
      if (own) await session.commit();
    } catch (error) {
      if (own) await session.rollback();
      throw error;
    }
    for (const file of todo) {
      metadata.set(file.name, file.digest);
      rmSync(file.path, { force: true });
    }
    this.loaded.set(statement.table, metadata);
    return results;
  }

  /** The table was dropped: its stage goes with it. */
  drop(table: string): void {
    this.loaded.delete(table);
    rmSync(this.folder(table), { recursive: true, force: true });
  }

  /** The files in a table's stage now. */
  files(table: string): string[] {
    const folder = this.folder(table);
    return existsSync(folder) ? readdirSync(folder).sort() : [];
  }

  /** Every file in every table's stage, for tests that check nothing was left. */
  allFiles(): string[] {
    return readdirSync(this.root).flatMap((folder) => readdirSync(join(this.root, folder)));
  }

  close(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** The table's columns; a missing table fails as Snowflake's 002003 does. */
async function requireTable(session: EmulatorSession, table: string): Promise<string[]> {
  const [schema, name] = table.match(new RegExp(IDENT, "g")) ?? [];
  const result = await session.run(
    "SELECT column_name FROM duckdb_columns() WHERE schema_name = ? AND table_name = ? ORDER BY column_index",
    [unquote(schema as string), unquote(name as string)],
  );
  if (result.rows.length === 0) throw new Error(`Table with name ${table} does not exist or not authorized.`);
  return result.rows.map((r) => String(r[0]));
}

/** COPY's answer as a JSON rowset: Snowflake's columns, numbers as fixed. */
export function copyRowset(results: readonly CopyFileResult[], queryId: string) {
  if (results.length === 0) {
    return {
      queryId,
      rowtype: [{ name: "status", type: "text", length: 16_777_216, nullable: false }],
      rowset: [["Copy executed with 0 files processed."]],
      total: 1,
      returned: 1,
      queryResultFormat: "json",
      parameters: [],
    };
  }
  const text = (name: string) => ({ name, type: "text", length: 16_777_216, nullable: true });
  const fixed = (name: string) => ({ name, type: "fixed", precision: 19, scale: 0, nullable: true });
  return {
    queryId,
    rowtype: [
      text("file"),
      text("status"),
      fixed("rows_parsed"),
      fixed("rows_loaded"),
      fixed("error_limit"),
      fixed("errors_seen"),
      text("first_error"),
      fixed("first_error_line"),
      fixed("first_error_character"),
      text("first_error_column_name"),
    ],
    rowset: results.map((r) => [r.file, r.status, String(r.rowsParsed), String(r.rowsLoaded), "1", "0", null, null, null, null]),
    total: results.length,
    returned: results.length,
    queryResultFormat: "json",
    parameters: [],
  };
}
