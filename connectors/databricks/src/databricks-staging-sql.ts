/**
 * The SQL of the bulk path: the driver's staging operations on a Unity Catalog volume (`PUT`,
 * `REMOVE`, `LIST`) and `COPY INTO` from the staged files. Paths are STRING literals (these
 * statements take no parameters); `stringLiteral` escapes them as Databricks reads literals.
 */

/**
 * `'…'` with `\` and `'` escaped by a backslash: Databricks reads backslash escapes in literals,
 * and two quotes in a row would be two literals run together, not an escaped quote.
 */
export function stringLiteral(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/** Uploads a local file into the volume (the driver sends it to the presigned URL the warehouse answers with). */
export function putSql(localFile: string, volumeFile: string): string {
  return `PUT ${stringLiteral(localFile)} INTO ${stringLiteral(volumeFile)} OVERWRITE`;
}

export function removeSql(volumeFile: string): string {
  return `REMOVE ${stringLiteral(volumeFile)}`;
}

/** The files in a volume folder: one row each, with `path`, `name`, `size` and `modification_time`. */
export function listSql(folder: string): string {
  return `LIST ${stringLiteral(`${folder}/`)}`;
}

/**
 * Loads staged Parquet files into a table, matching columns by name. `files` are names in
 * `folder`; COPY INTO takes at most 1,000 of them per statement.
 */
export function copyIntoSql(table: string, folder: string, files: readonly string[]): string {
  return `COPY INTO ${table} FROM ${stringLiteral(folder)} FILEFORMAT = PARQUET FILES = (${files.map(stringLiteral).join(", ")})`;
}

/** The most files one COPY INTO names (Databricks' limit on `FILES`). */
export const MAX_FILES_PER_COPY = 1000;
