import { EmulatorError } from "../emulator-error.js";
import type { StatementShape, Translation } from "../statement-shapes.js";
import { duckType, rewriteExpression } from "./snowflake-expressions.js";

/** What a statement needs from the session it runs in. */
export interface SnowflakeContext {
  /** The TIMEZONE a user's new sessions start in (Snowflake's default: America/Los_Angeles). */
  readonly defaultTimezone: string;
  /** Tables this session created TEMPORARY: dropped when it closes. */
  readonly temporary: Set<string>;
}

const IDENT = '"(?:[^"]|"")+"';
const TABLE = String.raw`(${IDENT})\.(${IDENT})`;

const unquote = (ident: string) => ident.slice(1, -1).replaceAll('""', '"');
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const table = (m: RegExpExecArray, at: number) => `${m[at]}.${m[at + 1]}`;

/** `"a" NUMBER(19,0) NOT NULL, …` as DuckDB column definitions, and the ARRAY columns (kept apart from VARIANT by a comment). */
function columnDefs(defs: string): { sql: string; arrays: string[] } {
  const arrays: string[] = [];
  const parts = splitTopLevel(defs).map((def) => {
    const m = new RegExp(String.raw`^(${IDENT})\s+(.+?)(\s+NOT NULL)?$`, "is").exec(def.trim());
    if (!m) throw new EmulatorError("unsupported", `the emulator does not understand the column definition ${def}`);
    if ((m[2] as string).trim().toUpperCase() === "ARRAY") arrays.push(m[1] as string);
    return `${m[1]} ${duckType(m[2] as string)}${m[3] ? " NOT NULL" : ""}`;
  });
  return { sql: parts.join(", "), arrays };
}

function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    if (quoted) continue;
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

const sql = (...statements: string[]): Translation => ({ sql: statements });

/** The Snowflake SQL type name of a DuckDB column, as INFORMATION_SCHEMA.COLUMNS spells it. */
const DATA_TYPE = `CASE
  WHEN data_type LIKE 'DECIMAL%' OR data_type IN ('BIGINT','INTEGER','HUGEINT','SMALLINT') THEN 'NUMBER'
  WHEN data_type = 'DOUBLE' THEN 'FLOAT'
  WHEN data_type = 'VARCHAR' THEN 'TEXT'
  WHEN data_type = 'BLOB' THEN 'BINARY'
  WHEN data_type = 'JSON' AND comment = 'ARRAY' THEN 'ARRAY'
  WHEN data_type = 'JSON' THEN 'VARIANT'
  WHEN data_type = 'TIMESTAMP' THEN 'TIMESTAMP_NTZ'
  WHEN data_type = 'TIMESTAMP WITH TIME ZONE' THEN 'TIMESTAMP_TZ'
  ELSE data_type END`;

/**
 * The statements sqlload's Snowflake connector (and its test harness) sends, each anchored on the
 * whole statement. DDL is marked `ddl`: the front end commits an open transaction before it, as
 * Snowflake does.
 */
export const snowflakeShapes: StatementShape<SnowflakeContext>[] = [
  { name: "begin", kind: "transaction", pattern: /^BEGIN( TRANSACTION)?$/i, translate: () => ({ action: "begin" }) },
  { name: "commit", kind: "transaction", pattern: /^COMMIT$/i, translate: () => ({ action: "commit" }) },
  { name: "rollback", kind: "transaction", pattern: /^ROLLBACK$/i, translate: () => ({ action: "rollback" }) },
  {
    // The emulator's sessions always run in UTC; any other zone would need conversions it does not
    // do. A lock timeout and a query tag change nothing here (conflicts fail at once).
    name: "set_session",
    kind: "query",
    pattern: /^ALTER SESSION SET TIMEZONE = 'UTC'(, LOCK_TIMEOUT = \d+)?(, QUERY_TAG = '[A-Za-z0-9_ -]*')?$/i,
    translate: () => sql("SELECT 'Statement executed successfully.' AS status"),
  },
  {
    name: "show_timezone",
    kind: "query",
    pattern: /^SHOW PARAMETERS LIKE 'TIMEZONE' IN USER$/i,
    translate: (_m, context) =>
      sql(
        `SELECT 'TIMEZONE' AS "key", '${context.defaultTimezone.replaceAll("'", "''")}' AS "value", 'America/Los_Angeles' AS "default", 'USER' AS "level"`,
      ),
  },
  {
    name: "create_schema",
    kind: "ddl",
    pattern: new RegExp(`^CREATE SCHEMA IF NOT EXISTS (${IDENT})$`, "i"),
    translate: (m) => sql(`CREATE SCHEMA IF NOT EXISTS ${m[1]}`),
  },
  {
    name: "drop_schema",
    kind: "ddl",
    pattern: new RegExp(`^DROP SCHEMA IF EXISTS (${IDENT}) CASCADE$`, "i"),
    translate: (m) => sql(`DROP SCHEMA IF EXISTS ${m[1]} CASCADE`),
  },
  {
    name: "list_schemas",
    kind: "query",
    pattern: new RegExp(
      `^SELECT "SCHEMA_NAME" AS "name" FROM ${IDENT}\\."INFORMATION_SCHEMA"\\."SCHEMATA" WHERE STARTSWITH\\("SCHEMA_NAME", \\?\\)$`,
      "i",
    ),
    translate: () => sql(`SELECT schema_name AS "name" FROM information_schema.schemata WHERE starts_with(schema_name, ?)`),
  },
  {
    name: "list_tables",
    kind: "query",
    pattern: new RegExp(
      `^SELECT "TABLE_NAME" AS "name" FROM ${IDENT}\\."INFORMATION_SCHEMA"\\."TABLES" WHERE "TABLE_SCHEMA" = \\? AND STARTSWITH\\("TABLE_NAME", \\?\\)$`,
      "i",
    ),
    translate: () => sql(`SELECT table_name AS "name" FROM duckdb_tables() WHERE schema_name = ? AND starts_with(table_name, ?)`),
  },
  {
    name: "describe_columns",
    kind: "query",
    pattern: new RegExp(
      `^SELECT "COLUMN_NAME" AS "name", "DATA_TYPE" AS "type", "NUMERIC_PRECISION" AS "precision", "NUMERIC_SCALE" AS "scale", "IS_NULLABLE" AS "nullable", "COLLATION_NAME" AS "collation" FROM ${IDENT}\\."INFORMATION_SCHEMA"\\."COLUMNS" WHERE "TABLE_SCHEMA" = \\? AND "TABLE_NAME" = \\? ORDER BY "ORDINAL_POSITION"$`,
      "i",
    ),
    translate: () =>
      sql(`SELECT column_name AS "name", ${DATA_TYPE} AS "type",
        CASE WHEN data_type LIKE 'DECIMAL%' THEN numeric_precision WHEN data_type IN ('BIGINT','INTEGER','HUGEINT','SMALLINT') THEN 38 END AS "precision",
        CASE WHEN data_type LIKE 'DECIMAL%' THEN numeric_scale WHEN data_type IN ('BIGINT','INTEGER','HUGEINT','SMALLINT') THEN 0 END AS "scale",
        CASE WHEN is_nullable THEN 'YES' ELSE 'NO' END AS "nullable", NULL::VARCHAR AS "collation"
        FROM duckdb_columns() WHERE schema_name = ? AND table_name = ? AND NOT internal ORDER BY column_index`),
  },
  {
    name: "create_table",
    kind: "ddl",
    pattern: new RegExp(`^CREATE (TEMPORARY )?TABLE (IF NOT EXISTS )?${TABLE} \\((.+)\\)$`, "is"),
    translate: (m, context) => {
      const name = table(m, 3);
      const defs = columnDefs(m[5] as string);
      if (m[1]) context.temporary.add(name);
      return sql(
        `CREATE TABLE ${m[2] ?? ""}${name} (${defs.sql})`,
        ...defs.arrays.map((c) => `COMMENT ON COLUMN ${name}.${c} IS 'ARRAY'`),
      );
    },
  },
  {
    name: "add_column",
    kind: "ddl",
    pattern: new RegExp(`^ALTER TABLE ${TABLE} ADD COLUMN (${IDENT}) (.+)$`, "is"),
    translate: (m) => {
      const name = table(m, 1);
      const defs = columnDefs(`${m[3]} ${m[4]}`);
      return sql(
        `ALTER TABLE ${name} ADD COLUMN ${defs.sql}`,
        ...defs.arrays.map((c) => `COMMENT ON COLUMN ${name}.${c} IS 'ARRAY'`),
      );
    },
  },
  {
    name: "swap",
    kind: "ddl",
    pattern: new RegExp(`^ALTER TABLE ${TABLE} SWAP WITH ${TABLE}$`, "i"),
    translate: (m) => {
      if (m[1] !== m[3]) throw new EmulatorError("unsupported", "the emulator swaps tables of one schema only");
      const swapping = quote(`_sqlload_emulator_swap_${unquote(m[2] as string)}`);
      return sql(
        `ALTER TABLE ${table(m, 1)} RENAME TO ${swapping}`,
        `ALTER TABLE ${table(m, 3)} RENAME TO ${m[2]}`,
        `ALTER TABLE ${m[1]}.${swapping} RENAME TO ${m[4]}`,
      );
    },
    writes: (m) => [table(m, 1), table(m, 3)],
  },
  {
    name: "rename",
    kind: "ddl",
    pattern: new RegExp(`^ALTER TABLE ${TABLE} RENAME TO ${TABLE}$`, "i"),
    translate: (m) => {
      if (m[1] !== m[3]) throw new EmulatorError("unsupported", "the emulator renames within one schema only");
      return sql(`ALTER TABLE ${table(m, 1)} RENAME TO ${m[4]}`);
    },
  },
  {
    name: "drop_table",
    kind: "ddl",
    pattern: new RegExp(`^DROP TABLE IF EXISTS ${TABLE}$`, "i"),
    translate: (m, context) => {
      context.temporary.delete(table(m, 1));
      return sql(`DROP TABLE IF EXISTS ${table(m, 1)}`);
    },
  },
  {
    name: "insert_values",
    kind: "dml",
    pattern: new RegExp(`^INSERT INTO ${TABLE} \\(((?:${IDENT}(?:, )?)+)\\) VALUES \\(((?:\\?(?:, )?)+)\\)$`, "i"),
    translate: (m) => sql(`INSERT INTO ${table(m, 1)} (${m[3]}) VALUES (${m[4]})`),
  },
  {
    name: "insert_select",
    kind: "dml",
    pattern: new RegExp(`^INSERT INTO ${TABLE} \\(((?:${IDENT}(?:, )?)+)\\) (SELECT .+)$`, "is"),
    translate: (m) => sql(`INSERT INTO ${table(m, 1)} (${m[3]}) ${rewriteExpression(m[4] as string)}`),
  },
  {
    name: "delete_range",
    kind: "dml",
    pattern: new RegExp(`^DELETE FROM ${TABLE} WHERE (.+)$`, "is"),
    translate: (m) => sql(`DELETE FROM ${table(m, 1)} WHERE ${rewriteExpression(m[3] as string)}`),
    writes: (m) => [table(m, 1)],
  },
  {
    name: "merge",
    kind: "dml",
    pattern: new RegExp(
      `^MERGE INTO ${TABLE} AS t USING \\((SELECT .+)\\) AS n ON (.+?)( WHEN MATCHED THEN UPDATE SET .+?)? WHEN NOT MATCHED THEN INSERT (.+)$`,
      "is",
    ),
    translate: (m) =>
      sql(
        `MERGE INTO ${table(m, 1)} AS t USING (${rewriteExpression(m[3] as string)}) AS n ON ${rewriteExpression(m[4] as string)}${m[5] ? ` ${rewriteExpression(m[5])}` : ""} WHEN NOT MATCHED THEN INSERT ${rewriteExpression(m[6] as string)}`,
      ),
    writes: (m) => [table(m, 1)],
  },
  {
    name: "update",
    kind: "dml",
    pattern: new RegExp(`^UPDATE ${TABLE} SET (${IDENT}) = \\?$`, "i"),
    translate: (m) => sql(`UPDATE ${table(m, 1)} SET ${m[3]} = ?`),
    writes: (m) => [table(m, 1)],
  },
  {
    name: "select",
    kind: "query",
    pattern: new RegExp(`^SELECT (.+) FROM ${TABLE}( AS s)?( WHERE .+?)?( ORDER BY .+)?$`, "is"),
    translate: (m) =>
      sql(
        `SELECT ${rewriteExpression(m[1] as string)} FROM ${table(m, 2)}${m[4] ?? ""}${m[5] ? ` ${rewriteExpression(m[5])}` : ""}${m[6] ? ` ${rewriteExpression(m[6])}` : ""}`,
      ),
  },
];
