import { quoteIdentifier } from "./bigquery-dialect.js";
import type { QueryParameter } from "./bigquery-jobs.js";

export interface ScriptParts {
  /** The target table, qualified. */
  readonly table: string;
  /** The stage holding the unit's rows, qualified; absent when the unit wrote none. */
  readonly stage?: string | undefined;
  /** Columns the stage and the table share, in table order. */
  readonly columns: readonly string[];
  /** Range predicates to delete (already built by core's rangePredicate). */
  readonly deletes: readonly string[];
  readonly merge?: { readonly keys: readonly string[] } | undefined;
  /** Run-log INSERTs and their parameters. */
  readonly log: readonly { readonly sql: string; readonly params: Readonly<Record<string, QueryParameter>> }[];
}

/**
 * The one script job of a commit unit: its deletes, the rows from the stage (inserted, or
 * merged on the keys) and its run-log records, in one BigQuery transaction. A failure of any
 * statement rolls back all of them.
 */
export function commitScript(parts: ScriptParts): { sql: string; params: Record<string, QueryParameter> } {
  const statements = ["BEGIN TRANSACTION"];
  for (const predicate of parts.deletes) statements.push(`DELETE FROM ${parts.table} WHERE ${predicate}`);
  if (parts.stage && parts.columns.length > 0) {
    statements.push(parts.merge ? mergeSql(parts.table, parts.stage, parts.columns, parts.merge.keys) : insertSql(parts));
  }
  const params: Record<string, QueryParameter> = {};
  for (const entry of parts.log) {
    statements.push(entry.sql);
    Object.assign(params, entry.params);
  }
  statements.push("COMMIT TRANSACTION");
  return { sql: `${statements.join(";\n")};`, params };
}

function insertSql(parts: ScriptParts): string {
  const list = parts.columns.map(quoteIdentifier).join(", ");
  return `INSERT INTO ${parts.table} (${list}) SELECT ${list} FROM ${parts.stage}`;
}

/** Upsert on the keys: BigQuery's MERGE fails when two stage rows match one target row, as a duplicate key should. */
export function mergeSql(table: string, stage: string, columns: readonly string[], keys: readonly string[]): string {
  const q = quoteIdentifier;
  const on = keys.map((k) => `target.${q(k)} = stage.${q(k)}`).join(" AND ");
  const updates = columns.filter((c) => !keys.includes(c)).map((c) => `${q(c)} = stage.${q(c)}`);
  const list = columns.map(q).join(", ");
  const values = columns.map((c) => `stage.${q(c)}`).join(", ");
  const matched = updates.length > 0 ? ` WHEN MATCHED THEN UPDATE SET ${updates.join(", ")}` : "";
  return `MERGE ${table} AS target USING ${stage} AS stage ON ${on}${matched} WHEN NOT MATCHED THEN INSERT (${list}) VALUES (${values})`;
}

/** The swap of a replace: one statement, so readers see the old table or the new one, never none. */
export function swapSql(table: string, build: string): string {
  return `CREATE OR REPLACE TABLE ${table} COPY ${build}`;
}
