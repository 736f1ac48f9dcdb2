import { resolve } from "node:path";
import type { ConfigKeySpec, SourceTableRef } from "@sqlload/core";
import { SqlloadError } from "@sqlload/core";
import { literalGlob } from "./files-glob.js";

export type FileFormat = "parquet" | "csv" | "jsonl";
export type Compression = "auto" | "none" | "gzip" | "zstd";

export const formats: readonly FileFormat[] = ["parquet", "csv", "jsonl"];
const compressions: readonly Compression[] = ["auto", "none", "gzip", "zstd"];

/** The keys of `[sources.X]` for the files connector. */
export const sourceKeys: readonly ConfigKeySpec[] = [
  { key: "path", type: "string", required: true, description: "The folder holding the files, relative to the project folder." },
];

/** The keys each `[sources.X.tables.NAME]` of a files source may set. */
export const tableKeys: readonly ConfigKeySpec[] = [
  {
    key: "glob",
    type: "string",
    description:
      'Which files make the table, relative to the source folder: `**` any folders, `*` any name part, `{a,b}` alternatives (default "<table>/**/*.<format>").',
  },
  {
    key: "format",
    type: "string",
    values: formats,
    description: "parquet, csv or jsonl (JSON lines); default from the glob's extension (.parquet, .csv, .jsonl/.ndjson).",
  },
  { key: "header", type: "boolean", description: "CSV: the first line names the columns (default true)." },
  { key: "delimiter", type: "string", description: 'CSV: the column separator (default ",").' },
  { key: "quote", type: "string", description: "CSV: the quoting character (default '\"')." },
  {
    key: "escape",
    type: "string",
    description: "CSV: the character escaping a quote inside a quoted value (default: the quote itself).",
  },
  {
    key: "compression",
    type: "string",
    values: compressions,
    description: 'CSV and JSON lines: "gzip", "zstd", "none", or "auto" (default: from the file extension, .gz or .zst).',
  },
  {
    key: "hive_partitioning",
    type: "boolean",
    description: "Read `key=value` folders as columns (default: when every file lies in such a folder).",
  },
];

/** The keys of `[target]` for the files connector. */
export const targetKeys: readonly ConfigKeySpec[] = [
  {
    key: "path",
    type: "string",
    description: 'The folder tables are written under, relative to the project folder (default "lake").',
  },
  {
    key: "partition_by",
    type: "table",
    description:
      'Partition column per target table, e.g. `partition_by = { app__orders = "order_date" }`: one folder per value, and delete_insert rewrites only the partitions it touches.',
  },
  {
    key: "compression",
    type: "string",
    values: ["snappy", "zstd", "gzip", "uncompressed"],
    description: 'Parquet compression of the data files (default "zstd").',
  },
];

export const DEFAULT_TARGET_PATH = "lake";

export interface SourceTableOptions {
  readonly glob: string;
  readonly format: FileFormat;
  readonly header: boolean;
  readonly delimiter?: string | undefined;
  readonly quote?: string | undefined;
  readonly escape?: string | undefined;
  readonly compression: Compression;
  /** Undefined: decided from the files (every file in a `key=value` folder). */
  readonly hivePartitioning?: boolean | undefined;
}

const EXTENSIONS: Record<FileFormat, string> = { parquet: "parquet", csv: "csv", jsonl: "jsonl" };

/** The format a glob's extension implies, looking through a compression suffix. */
export function formatOfGlob(glob: string): FileFormat | undefined {
  const name = glob.toLowerCase().replace(/\.(gz|gzip|zst|zstd)$/, "");
  if (name.endsWith(".parquet") || name.endsWith(".pq")) return "parquet";
  if (name.endsWith(".csv") || name.endsWith(".tsv")) return "csv";
  if (name.endsWith(".jsonl") || name.endsWith(".ndjson") || name.endsWith(".json")) return "jsonl";
  return undefined;
}

/** A table's options from `sqlload.toml` (already type-checked by core against `tableKeys`). */
export function sourceTableOptions(
  table: SourceTableRef,
  options: Readonly<Record<string, unknown>>,
  source: string,
): SourceTableOptions {
  const label = `${source}.${table.key}`;
  if (table.schema !== undefined) {
    throw new SqlloadError("SL110", `table key ${JSON.stringify(table.key)} of files source ${source} has a schema part`, {
      table: label,
      hint: 'A files source names tables without a schema: `[sources.lake.tables.orders]` with `glob = "orders/**/*.parquet"`.',
    });
  }
  const given = options.format as FileFormat | undefined;
  // The default glob names the table's folder literally, whatever characters its name holds.
  const glob =
    (options.glob as string | undefined) ?? (given ? `${literalGlob(table.name)}/**/*.${EXTENSIONS[given]}` : undefined);
  if (glob === undefined) {
    throw new SqlloadError("SL105", `table ${label} needs \`glob\` (which files make it) or \`format\``, {
      table: label,
      hint: 'Add e.g. `glob = "orders/**/*.parquet"` to the table.',
    });
  }
  const format = given ?? formatOfGlob(glob);
  if (!format) {
    throw new SqlloadError("SL105", `table ${label}: the format of ${JSON.stringify(glob)} cannot be told from its extension`, {
      table: label,
      hint: 'Add `format = "parquet"`, `"csv"` or `"jsonl"` to the table.',
    });
  }
  for (const key of ["delimiter", "quote", "escape"] as const) {
    const value = options[key];
    if (typeof value === "string" && value.length !== 1 && !(key === "delimiter" && value === "\\t")) {
      throw new SqlloadError("SL107", `table ${label}: \`${key}\` must be one character, not ${JSON.stringify(value)}`, {
        table: label,
      });
    }
    if (value !== undefined && format !== "csv") {
      throw new SqlloadError("SL112", `table ${label}: \`${key}\` applies to CSV files only; the format is ${format}`, {
        table: label,
      });
    }
  }
  if (options.compression !== undefined && format === "parquet") {
    throw new SqlloadError(
      "SL112",
      `table ${label}: \`compression\` applies to CSV and JSON lines; Parquet files say their own`,
      {
        table: label,
      },
    );
  }
  return {
    glob,
    format,
    header: (options.header as boolean | undefined) ?? true,
    delimiter: options.delimiter === "\\t" ? "\t" : (options.delimiter as string | undefined),
    quote: options.quote as string | undefined,
    escape: options.escape as string | undefined,
    compression: (options.compression as Compression | undefined) ?? "auto",
    hivePartitioning: options.hive_partitioning as boolean | undefined,
  };
}

/** The source folder, resolved against the project. */
export function sourceRoot(options: Readonly<Record<string, unknown>>, projectDir: string, source: string | undefined): string {
  const path = options.path;
  if (typeof path !== "string" || path === "") {
    throw new SqlloadError(
      "SL105",
      `${source ? `source ${source}` : "a files source"} needs \`path\`, the folder holding the files`,
    );
  }
  return resolve(projectDir, path);
}

export interface TargetOptions {
  readonly root: string;
  /** Partition column by target table name (`app__orders`) or `schema.name`. */
  readonly partitionBy: ReadonlyMap<string, string>;
  readonly compression: string;
}

export function targetOptions(options: Readonly<Record<string, unknown>>, projectDir: string): TargetOptions {
  const path = options.path ?? DEFAULT_TARGET_PATH;
  if (typeof path !== "string" || path === "")
    throw new SqlloadError("SL103", "the files target's `path` must be a non-empty string");
  const partitionBy = new Map<string, string>();
  const raw = options.partition_by;
  if (raw !== undefined) {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
      throw new SqlloadError("SL103", "the files target's `partition_by` must be a table of target table → column");
    }
    for (const [table, column] of Object.entries(raw as Record<string, unknown>)) {
      if (typeof column !== "string" || column === "") {
        throw new SqlloadError("SL103", `\`partition_by.${table}\` must name a column (a string)`, {
          hint: 'Write e.g. `partition_by = { app__orders = "order_date" }`.',
        });
      }
      partitionBy.set(table, column);
    }
  }
  return { root: resolve(projectDir, path), partitionBy, compression: (options.compression as string | undefined) ?? "zstd" };
}
