import type { DuckDBConnection } from "@duckdb/node-api";
import { cursorFromDuckDB } from "@sqlload/connector-duckdb/engine";
import { type CursorKind, type CursorValue, SqlloadError } from "@sqlload/core";
import { fileListParameter } from "./files-engine.js";

/**
 * What a Parquet file's footer says about one column, from the row groups' statistics. `exact`
 * is false when some row group holding values has no statistics for it (then only a scan knows).
 */
export interface ColumnStats {
  readonly min: CursorValue | null;
  readonly max: CursorValue | null;
  readonly nulls: number;
  readonly exact: boolean;
}

/**
 * The statistics of `column` in each file, read from the footers only (`parquet_metadata`).
 * A file that lacks the column holds only NULLs in it. `castType` is the column's DuckDB type in
 * the table (the statistics are text, cast back to it). Only `stats_*_value` are used: the older
 * `stats_min`/`stats_max` fields ordered text by signed bytes, which is not code point order.
 */
export async function columnStats(
  connection: DuckDBConnection,
  files: readonly string[],
  column: string,
  kind: CursorKind,
  castType: string,
): Promise<Map<string, ColumnStats>> {
  const out = new Map<string, ColumnStats>();
  if (files.length === 0) return out;
  const list = fileListParameter(files);
  const reader = await connection.runAndReadAll(
    `SELECT file_name,
            min(TRY_CAST(stats_min_value AS ${castType})) AS lo,
            max(TRY_CAST(stats_max_value AS ${castType})) AS hi,
            sum(coalesce(stats_null_count, 0))::BIGINT AS nulls,
            bool_and(stats_null_count IS NOT NULL AND (stats_null_count = num_values
                     OR (TRY_CAST(stats_min_value AS ${castType}) IS NOT NULL AND TRY_CAST(stats_max_value AS ${castType}) IS NOT NULL))) AS exact
       FROM parquet_metadata($files)
      WHERE path_in_schema = $column
      GROUP BY file_name`,
    { files: list.value, column },
    { files: list.type },
  );
  const types = reader.columnTypes();
  for (const row of reader.getRows()) {
    const [file, lo, hi, nulls, exact] = row;
    out.set(String(file), {
      min: lo === null || lo === undefined ? null : (cursorFromDuckDB(kind, types[1]!, lo) ?? null),
      max: hi === null || hi === undefined ? null : (cursorFromDuckDB(kind, types[2]!, hi) ?? null),
      nulls: Number(nulls),
      exact: exact === true,
    });
  }
  return out;
}

/** The families of types DuckDB can unify without losing what a value means. */
function family(type: string): string {
  const t = type.toUpperCase();
  if (/^(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|REAL|DOUBLE|DECIMAL.*)$/.test(t)) return "number";
  if (t === "DATE" || t.startsWith("TIMESTAMP")) return "time";
  return t;
}

/**
 * Checks that the top-level columns of the files can be read as one table: a column may be
 * missing from some files (it reads as NULL there) or widen (an INTEGER becoming BIGINT, a DATE
 * a TIMESTAMP), but not change kind, e.g. from a number to text, which `union_by_name` would
 * silently turn into text. Throws SL304 naming a file of each type.
 */
export async function checkParquetSchemas(
  connection: DuckDBConnection,
  files: readonly string[],
  table: string,
  shown: (file: string) => string,
): Promise<void> {
  if (files.length < 2) return;
  const list = fileListParameter(files);
  const reader = await connection.runAndReadAll(
    `SELECT file_name, name, duckdb_type, num_children FROM parquet_schema($files)`,
    { files: list.value },
    { files: list.type },
  );
  const byFile = new Map<string, { name: string; type: string | null; children: number }[]>();
  for (const [file, name, type, children] of reader.getRows()) {
    const key = String(file);
    let rows = byFile.get(key);
    if (!rows) byFile.set(key, (rows = []));
    rows.push({
      name: String(name),
      type: type === null ? null : String(type),
      children: children === null ? 0 : Number(children),
    });
  }
  const seen = new Map<string, { family: string; type: string; file: string }>();
  for (const [file, rows] of byFile) {
    // The rows are the schema tree in depth-first order: the root, then each column's subtree.
    let i = 1;
    const signature = (): string => {
      const row = rows[i++];
      if (!row) return "?";
      if (row.children === 0) return row.type ?? "?";
      const parts: string[] = [];
      for (let c = 0; c < row.children; c++) parts.push(signature());
      return `${row.type ?? "NESTED"}(${parts.join(",")})`;
    };
    const root = rows[0];
    for (let c = 0; c < (root?.children ?? 0); c++) {
      const name = rows[i]?.name ?? "?";
      const type = signature();
      const found = seen.get(name);
      const fam = family(type);
      if (!found) seen.set(name, { family: fam, type, file });
      else if (found.family !== fam) {
        throw new SqlloadError(
          "SL304",
          `table ${table}: column "${name}" is ${found.type} in ${shown(found.file)} but ${type} in ${shown(file)}; these types cannot be unified`,
          { table, hint: "Rewrite one of the files with a matching type, or narrow the table's `glob` to leave it out." },
        );
      }
    }
  }
}
