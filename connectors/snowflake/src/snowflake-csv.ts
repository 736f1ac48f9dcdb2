import type { StageRow } from "./snowflake-stage.js";

/**
 * The file format of the stage files, as COPY INTO reads them. Every value is enclosed in double
 * quotes (a quote inside doubled), so delimiters, quotes, newlines and leading or trailing spaces
 * are data; NULL is the one unenclosed empty field, which EMPTY_FIELD_AS_NULL loads as NULL while
 * `""` loads as the empty string. NULL_IF is emptied (its default `\\N` would turn that text into
 * NULL), no escape character is honoured, nothing is trimmed and invalid UTF-8 fails the load
 * instead of being replaced. The values are the same text the INSERT path binds, so both paths
 * cast them back identically.
 */
export const CSV_FILE_FORMAT =
  "TYPE = CSV COMPRESSION = GZIP FIELD_DELIMITER = ',' FIELD_OPTIONALLY_ENCLOSED_BY = '\"' ESCAPE = NONE ESCAPE_UNENCLOSED_FIELD = NONE EMPTY_FIELD_AS_NULL = TRUE NULL_IF = () TRIM_SPACE = FALSE SKIP_HEADER = 0 ERROR_ON_COLUMN_COUNT_MISMATCH = TRUE REPLACE_INVALID_CHARACTERS = FALSE ENCODING = 'UTF8'";

/** One row as one CSV record, newline-terminated. */
export function csvRecord(row: StageRow): string {
  let out = "";
  for (let i = 0; i < row.length; i++) {
    const value = row[i];
    if (i > 0) out += ",";
    if (value !== null && value !== undefined) out += `"${value.replaceAll('"', '""')}"`;
  }
  return `${out}\n`;
}
