import type { DuckDBConnection, DuckDBType } from "@duckdb/node-api";
import { duckdbMessage, logicalTypeOf, quoteString, wrapDuckDBError } from "@sqlload/connector-duckdb/engine";
import { type CursorKind, cursorKindOf, type LogicalType, type SourceTableRequest, SqlloadError } from "@sqlload/core";
import { checkLoosePaths, fileListParameter } from "./files-engine.js";
import { globBase, globToRegExp } from "./files-glob.js";
import { partitionsOf } from "./files-hive.js";
import type { SourceTableOptions } from "./files-options.js";
import { checkParquetSchemas } from "./files-parquet.js";
import type { FileStore } from "./files-store.js";

/** One file of a source table. */
export interface SourceFile {
  /** Relative to the source folder, with `/`: how messages name it. */
  readonly path: string;
  /** What DuckDB opens. */
  readonly enginePath: string;
  readonly size: number;
  readonly modified: Date;
  /** Its `key=value` folders. */
  readonly partitions: ReadonlyMap<string, string | null>;
}

export interface TableColumn {
  readonly name: string;
  readonly type: LogicalType;
  /** As DuckDB reads it from all the table's files together. */
  readonly duckType: DuckDBType;
}

/** A source table resolved against the files that make it now. */
export interface ResolvedTable {
  readonly label: string;
  readonly options: SourceTableOptions;
  readonly hive: boolean;
  readonly files: readonly SourceFile[];
  readonly columns: readonly TableColumn[];
  readonly cursor?: { readonly column: TableColumn; readonly kind: CursorKind; readonly partition: boolean } | undefined;
}

/** The files of the store matching the table's glob, in path order. */
export async function listFiles(store: FileStore, options: SourceTableOptions): Promise<SourceFile[]> {
  const pattern = globToRegExp(options.glob);
  const listed = await store.list(globBase(options.glob));
  const files: SourceFile[] = [];
  for (const file of listed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (!pattern.test(file.path)) continue;
    // Folders and files whose name starts with `.` or `_` are hidden by convention (Spark's
    // `_SUCCESS`, `_sqlload/`, editors' temporary files), unless the glob names them.
    if (file.path.split("/").some((part) => /^[._]/.test(part)) && !/(^|\/)[._]/.test(options.glob)) continue;
    const enginePath = await store.enginePath(file.path);
    files.push({ path: file.path, enginePath, size: file.size, modified: file.modified, partitions: partitionsOf(enginePath) });
  }
  return files;
}

const JSON_COMPRESSION: Record<SourceTableOptions["compression"], string> = {
  auto: "auto_detect",
  none: "uncompressed",
  gzip: "gzip",
  zstd: "zstd",
};

/** The DuckDB table function reading the files bound as `$files`. */
export function readCall(options: SourceTableOptions, hive: boolean): string {
  const common = `hive_partitioning = ${hive}, union_by_name = true`;
  switch (options.format) {
    case "parquet":
      return `read_parquet($files, ${common})`;
    case "csv": {
      const extra = [
        `header = ${options.header}`,
        `compression = ${quoteString(options.compression === "auto" ? "auto" : options.compression)}`,
        ...(options.delimiter !== undefined ? [`delim = ${quoteString(options.delimiter)}`] : []),
        ...(options.quote !== undefined ? [`quote = ${quoteString(options.quote)}`] : []),
        ...(options.escape !== undefined ? [`escape = ${quoteString(options.escape)}`] : []),
      ];
      return `read_csv($files, ${common}, ${extra.join(", ")})`;
    }
    case "jsonl":
      // read_json names the two choices of read_csv differently.
      return `read_json($files, format = 'newline_delimited', ${common}, compression = ${quoteString(JSON_COMPRESSION[options.compression])})`;
  }
}

/** The columns DuckDB reads from `files` together, with their types. */
export async function describeFiles(
  connection: DuckDBConnection,
  files: readonly SourceFile[],
  options: SourceTableOptions,
  hive: boolean,
): Promise<Map<string, DuckDBType>> {
  const list = fileListParameter(files.map((f) => f.enginePath));
  const reader = await connection.runAndReadAll(
    `SELECT * FROM ${readCall(options, hive)} LIMIT 0`,
    { files: list.value },
    { files: list.type },
  );
  const types = reader.columnTypes();
  return new Map(reader.columnNames().map((name, i) => [name, types[i] as DuckDBType]));
}

/** Changes whenever a file is added, removed or rewritten: a described table stays valid while it is the same. */
export function listingSignature(files: readonly SourceFile[]): string {
  return files.map((f) => `${f.path}\u0000${f.size}\u0000${f.modified.getTime()}`).join("\n");
}

/**
 * Describes a table from its files (as listFiles found them): the columns they hold together (checked to be
 * unifiable for Parquet), and its cursor. The request's `columns` narrow what is read, and the
 * cursor column is always read.
 */
export async function resolveTable(
  connection: DuckDBConnection,
  files: readonly SourceFile[],
  request: SourceTableRequest,
  options: SourceTableOptions,
  label: string,
  where: string,
): Promise<ResolvedTable> {
  if (files.length === 0) {
    throw new SqlloadError("SL206", `table ${label}: no file in ${where} matches ${JSON.stringify(options.glob)}`, {
      table: label,
      hint: "Check the source's `path` and the table's `glob` (relative to that folder).",
    });
  }
  const hive = options.hivePartitioning ?? files.every((f) => f.partitions.size > 0);
  await checkLoosePaths(
    connection,
    files.map((f) => f.enginePath),
    label,
    (path) => shownPath(files, path),
  ).catch((error) => {
    throw wrapDuckDBError(error, "source", `table ${label}: listing its files through DuckDB failed`, label);
  });
  if (options.format === "parquet") {
    await checkParquetSchemas(
      connection,
      files.map((f) => f.enginePath),
      label,
      (path) => shownPath(files, path),
    ).catch((error) => {
      throw wrapDuckDBError(error, "source", `table ${label}: reading the schemas of its Parquet files failed`, label);
    });
  }
  let all: Map<string, DuckDBType>;
  try {
    all = await describeFiles(connection, files, options, hive);
  } catch (error) {
    throw new SqlloadError(
      "SL304",
      `table ${label}: its ${files.length} ${options.format} file(s) cannot be read as one table: ${duckdbMessage(error)}`,
      {
        table: label,
        cause: error,
        hint: "The message names the file DuckDB could not read; fix or remove it, or narrow `glob`.",
      },
    );
  }
  const column = (name: string, code: "SL200" | "SL209"): TableColumn => {
    const duckType = all.get(name);
    if (!duckType) {
      throw new SqlloadError(
        code,
        `table ${label}: column "${name}" is in none of its files (columns: ${[...all.keys()].join(", ")})`,
        {
          table: label,
        },
      );
    }
    return { name, type: logicalTypeOf(duckType), duckType };
  };
  const columns = request.columns
    ? request.columns.map((name) => column(name, "SL209"))
    : [...all.keys()].map((name) => column(name, "SL209"));
  let cursor: ResolvedTable["cursor"];
  if (request.cursorColumn) {
    const found = columns.find((c) => c.name === request.cursorColumn) ?? column(request.cursorColumn, "SL200");
    const kind = cursorKindOf(found.type);
    if (!kind) {
      throw new SqlloadError(
        "SL201",
        `table ${label}: cursor column "${found.name}" is ${found.duckType.toString()} in its files`,
        { table: label },
      );
    }
    if (!columns.includes(found)) columns.push(found);
    const partition = hive && files.some((f) => f.partitions.has(found.name));
    cursor = { column: found, kind, partition };
  }
  return { label, options, hive, files, columns, cursor };
}

/** A file's path relative to the source folder, for messages, from what DuckDB calls it. */
export function shownPath(files: readonly SourceFile[], enginePath: string): string {
  return files.find((f) => f.enginePath === enginePath)?.path ?? enginePath;
}
