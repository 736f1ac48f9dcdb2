import type { StatementShape } from "../statement-shapes.js";
import { toDuckDbSql } from "./databricks-sql.js";

/** A backtick-quoted identifier, and a three-part `catalog`.`schema`.`table` name. */
const N = "`(?:[^`]|``)+`";
const Q = `(${N}\\.${N}\\.${N})`;

/** What the front end does beyond running the translated SQL. */
export interface DatabricksContext {
  readonly tablesCreatedCatalogManaged: Set<string>;
}

const sql = (text: string) => ({ sql: [toDuckDbSql(text)] });
const writes = (group: number) => (match: RegExpExecArray) => [toDuckDbSql(match[group] as string).toLowerCase()];

/**
 * The statements the Databricks connector sends, each anchored on the whole statement. Anything
 * else is rejected. `BEGIN ATOMIC … END` is not a shape: the front end splits it and matches
 * every inner statement here.
 */
export const databricksShapes: readonly StatementShape<DatabricksContext>[] = [
  {
    name: "create_schema",
    kind: "ddl",
    pattern: new RegExp(`^CREATE SCHEMA IF NOT EXISTS (${N}\\.${N})$`),
    translate: (m) => sql(m[0]),
  },
  {
    name: "create_table",
    kind: "ddl",
    pattern: new RegExp(`^CREATE TABLE IF NOT EXISTS ${Q} \\(([\\s\\S]+?)\\)(?: TBLPROPERTIES \\(([^)]*)\\))?$`),
    translate: (m) => sql(m[0]),
    writes: writes(1),
  },
  {
    name: "add_columns",
    kind: "ddl",
    pattern: new RegExp(`^ALTER TABLE ${Q} ADD COLUMNS \\(([\\s\\S]+)\\)$`),
    translate: (m) => ({
      sql: [...(m[2] as string).matchAll(new RegExp(`(${N}) ((?:ARRAY<)*[A-Z_]+(?:\\(\\d+,\\d+\\))?>*)`, "g"))].map((c) =>
        toDuckDbSql(`ALTER TABLE ${m[1]} ADD COLUMN ${c[1]} ${c[2]}`),
      ),
    }),
    writes: writes(1),
  },
  {
    name: "drop_table",
    kind: "ddl",
    pattern: new RegExp(`^DROP TABLE IF EXISTS ${Q}$`),
    translate: (m) => sql(m[0]),
    writes: writes(1),
  },
  {
    name: "create_or_replace",
    kind: "ddl",
    pattern: new RegExp(`^CREATE OR REPLACE TABLE ${Q}(?: TBLPROPERTIES \\(([^)]*)\\))? AS SELECT ([\\s\\S]+) FROM ${Q}$`),
    translate: (m) => sql(m[0]),
    writes: writes(1),
  },
  {
    name: "run_log_insert",
    kind: "dml",
    pattern: new RegExp(
      `^INSERT INTO ${Q} \\(([^)]+)\\) SELECT ([\\s\\S]+) FROM \\(VALUES ([\\s\\S]+)\\) AS v\\(([^)]+)\\) CROSS JOIN \\(SELECT COALESCE\\(MAX\\(\`pos\`\\), 0\\) AS base FROM ${Q} WHERE ([^()]+)\\) AS b$`,
    ),
    translate: (m) => sql(m[0]),
    writes: writes(1),
  },
  {
    name: "insert_values",
    kind: "dml",
    pattern: new RegExp(`^INSERT INTO ${Q} \\(([^)]+)\\) VALUES ([\\s\\S]+)$`),
    translate: (m) => sql(m[0]),
    writes: writes(1),
  },
  {
    name: "insert_if_absent",
    kind: "dml",
    pattern: new RegExp(
      `^INSERT INTO ${Q} \\(([^)]+)\\) SELECT ([\\s\\S]+?) WHERE NOT EXISTS \\(SELECT 1 FROM ${Q} WHERE ([^()]+)\\)$`,
    ),
    translate: (m) => sql(m[0]),
    writes: writes(1),
  },
  {
    name: "insert_select",
    kind: "dml",
    pattern: new RegExp(`^INSERT INTO ${Q} \\(([^)]+)\\) SELECT ([\\s\\S]+) FROM ${Q}$`),
    translate: (m) => sql(m[0]),
    writes: writes(1),
  },
  {
    // The front end checks REPLACE WHERE's rule (every inserted row satisfies the predicate) first.
    name: "replace_where",
    kind: "dml",
    pattern: new RegExp(`^INSERT INTO ${Q} REPLACE WHERE ([\\s\\S]+) SELECT ([\\s\\S]+) FROM ${Q}$`),
    translate: (m) => ({
      sql: [toDuckDbSql(`DELETE FROM ${m[1]} WHERE ${m[2]}`), toDuckDbSql(`INSERT INTO ${m[1]} SELECT ${m[3]} FROM ${m[4]}`)],
    }),
    writes: writes(1),
  },
  {
    name: "delete_where",
    kind: "dml",
    pattern: new RegExp(`^DELETE FROM ${Q} WHERE ([\\s\\S]+)$`),
    translate: (m) => sql(m[0]),
    writes: writes(1),
  },
  {
    name: "update_where",
    kind: "dml",
    pattern: new RegExp(`^UPDATE ${Q} SET ([\\s\\S]+?) WHERE ([^()]+)$`),
    translate: (m) => sql(m[0]),
    writes: writes(1),
  },
  {
    name: "merge",
    kind: "dml",
    pattern: new RegExp(
      `^MERGE INTO ${Q} AS tgt USING \\(SELECT ([\\s\\S]+) FROM ${Q} QUALIFY ([\\s\\S]+)\\) AS src ON ([\\s\\S]+?)(?: WHEN MATCHED THEN UPDATE SET ([\\s\\S]+?))? WHEN NOT MATCHED THEN INSERT \\(([^)]+)\\) VALUES \\(([^)]+)\\)$`,
    ),
    translate: (m) => sql(m[0]),
    writes: writes(1),
  },
  {
    name: "describe_columns",
    kind: "query",
    pattern: new RegExp(
      `^SELECT column_name, full_data_type, is_nullable FROM (${N})\\.information_schema\\.columns WHERE lower\\(table_schema\\) = lower\\(:schema\\) AND lower\\(table_name\\) = lower\\(:table\\) ORDER BY ordinal_position$`,
    ),
    translate: (m) => ({
      sql: [
        `SELECT column_name, data_type AS full_data_type, is_nullable FROM information_schema.columns WHERE table_catalog = ${toDuckDbSql(m[1] as string).replaceAll('"', "'")} AND lower(table_schema) = lower($schema) AND lower(table_name) = lower($table) ORDER BY ordinal_position`,
      ],
    }),
  },
  {
    // DuckDB keeps no per-column collations: every text column compares by code point, as UTF8_BINARY does.
    name: "describe_collations",
    kind: "query",
    pattern: new RegExp(
      `^SELECT column_name, collation_name FROM (${N})\\.information_schema\\.columns WHERE lower\\(table_schema\\) = lower\\(:schema\\) AND lower\\(table_name\\) = lower\\(:table\\) AND collation_name IS NOT NULL ORDER BY ordinal_position$`,
    ),
    translate: (m) => ({
      sql: [
        `SELECT column_name, 'UTF8_BINARY' AS collation_name FROM information_schema.columns WHERE table_catalog = ${toDuckDbSql(m[1] as string).replaceAll('"', "'")} AND lower(table_schema) = lower($schema) AND lower(table_name) = lower($table) AND data_type = 'VARCHAR' ORDER BY ordinal_position`,
      ],
    }),
  },
  {
    name: "select",
    kind: "query",
    pattern: new RegExp(`^SELECT ([^;]+?) FROM ${Q}(?: WHERE ([^;]+?))?(?: ORDER BY ([^;]+))?$`),
    translate: (m) => sql(m[0]),
  },
  {
    name: "select_constant",
    kind: "query",
    pattern: /^SELECT 1$/,
    translate: (m) => sql(m[0]),
  },
];
