import type { TargetTableRef } from "@sqlload/core";
import { CSV_FILE_FORMAT } from "./snowflake-csv.js";
import { qualifiedTable, quoteIdent } from "./snowflake-dialect.js";
import type { Row } from "./snowflake-session.js";

/** COPY INTO takes at most 1,000 names in FILES = (…). */
export const MAX_FILES_PER_COPY = 1000;

/** `@"raw".%"_sqlload_stage_…"`: the table stage every Snowflake table has, dropped with it. */
export function tableStage(table: TargetTableRef): string {
  return `@${quoteIdent(table.schema)}.%${quoteIdent(table.name)}`;
}

/**
 * Uploads one local file, already gzip-compressed, to the table's stage. snowflake-sdk reads the
 * path from the statement, asks Snowflake where to put it (the answer names the cloud storage and
 * the encryption material) and uploads it itself. OVERWRITE: a PUT retried after a network error
 * replaces its own half-sent file rather than being skipped.
 */
export function putSql(localPath: string, table: TargetTableRef): string {
  const path = localPath.replaceAll("\\", "/");
  if (path.includes("'")) throw new Error(`the local file ${path} has a quote in its path; set TMPDIR to a plain folder`);
  return `PUT 'file://${path}' ${tableStage(table)} AUTO_COMPRESS = FALSE SOURCE_COMPRESSION = GZIP OVERWRITE = TRUE`;
}

/**
 * Loads the named files of the table's stage into it, positionally (the files hold the stage's
 * columns in order). ON_ERROR = ABORT_STATEMENT: one bad value loads nothing. PURGE removes the
 * files after a successful load. The names are unique per unit, so Snowflake's load metadata (which
 * skips a file it already loaded into the table) can never skip rows of this unit.
 */
export function copySql(table: TargetTableRef, files: readonly string[]): string {
  const names = files.map((f) => `'${f.replaceAll("'", "''")}'`).join(", ");
  return `COPY INTO ${qualifiedTable(table)} FROM ${tableStage(table)} FILES = (${names}) FILE_FORMAT = (${CSV_FILE_FORMAT}) ON_ERROR = ABORT_STATEMENT PURGE = TRUE`;
}

/** The PUT's result row says the file was uploaded; anything else (SKIPPED, ERROR) fails the unit. */
export function checkPut(rows: readonly Row[], file: string): void {
  const row = rows.find((r) => r.target === file || r.source === file);
  if (row?.status !== "UPLOADED") {
    throw new Error(`PUT of ${file} ended ${row ? `with status ${row.status}: ${row.message ?? ""}` : "without a result"}`);
  }
}

/**
 * COPY's result has one row per file: every file must be LOADED and the rows loaded must be the
 * rows written. A COPY that processed no file answers a single `status` row and fails here too.
 */
export function checkCopy(rows: readonly Row[], files: readonly string[]): number {
  let loaded = 0;
  for (const file of files) {
    const row = rows.find((r) => typeof r.file === "string" && (r.file === file || r.file.endsWith(`/${file}`)));
    if (row?.status !== "LOADED") {
      throw new Error(
        `COPY INTO did not load ${file}: ${row ? `${row.status} (${row.first_error ?? "no error given"})` : (rows[0]?.status ?? "no result")}`,
      );
    }
    loaded += Number(row.rows_loaded);
  }
  return loaded;
}
