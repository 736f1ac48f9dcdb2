import { EmulatorError } from "../emulator-error.js";
import type { StatementShape } from "../statement-shapes.js";
import { duckIdent, duckTable } from "./bigquery-catalog.js";

/** A backticked identifier of BigQuery (backslash escapes inside). */
const IDENT = "`(?:[^`\\\\]|\\\\.)+`";
const TABLE = `(${IDENT}\\.${IDENT})`;
const COLS = `((?:${IDENT})(?:, ${IDENT})*)`;

export function unquote(quoted: string): string {
  return quoted.slice(1, -1).replace(/\\(.)/g, "$1");
}

/** `` `ds`.`t` `` → its dataset and table. */
export function tableRef(text: string): { dataset: string; table: string } {
  const m = new RegExp(`^(${IDENT})\\.(${IDENT})$`).exec(text);
  if (!m) throw new EmulatorError("unsupported", `not a dataset-qualified table: ${text}`);
  return { dataset: unquote(m[1] as string), table: unquote(m[2] as string) };
}

function duckOf(text: string): string {
  const { dataset, table } = tableRef(text);
  return duckTable(dataset, table);
}

function duckColumns(list: string): string {
  return (list.match(new RegExp(IDENT, "g")) ?? []).map((c) => duckIdent(unquote(c))).join(", ");
}

/** Decodes a BigQuery string literal's escapes. */
function unescapeString(body: string): string {
  return body.replace(/\\(U[0-9a-fA-F]{8}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_m, e: string) => {
    if (e[0] === "u" || e[0] === "U" || e[0] === "x") return String.fromCodePoint(Number.parseInt(e.slice(1), 16));
    return ({ n: "\n", t: "\t", r: "\r", "0": "\0" } as Record<string, string>)[e] ?? e;
  });
}

function duckString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

const KEYWORDS = new Set(["AND", "OR", "NOT", "IS", "NULL", "TRUE", "FALSE"]);
/** Lowercase names of sqlload's own tables' columns and the MERGE aliases, written bare. */
const BARE = /^[a-z_][a-z0-9_]*$/;

/**
 * Translates a BigQuery boolean expression or value list of the forms sqlload writes: quoted
 * or bare column names (optionally `target.`/`stage.` qualified), comparisons, AND/OR/NOT,
 * IS [NOT] NULL, parentheses, numbers, string literals, `DATE/DATETIME/TIMESTAMP '…'`
 * literals, `CAST(x AS BYTES)` (UTF-8 bytes, compared bytewise), `CURRENT_TIMESTAMP()` and
 * `@parameters`. Any other token is refused.
 */
export function translateExpression(text: string): string {
  const out: string[] = [];
  const re =
    /\s+|`(?:[^`\\]|\\.)+`|'(?:[^'\\]|\\.)*'|@[A-Za-z_][A-Za-z0-9_]*|-?\d+(?:\.\d+)?|<=|>=|<>|!=|[=<>(),.]|[A-Za-z_][A-Za-z0-9_]*/y;
  const tokens: string[] = [];
  for (let i = 0; i < text.length; ) {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m)
      throw new EmulatorError("unsupported", `the emulator does not understand this expression at: ${text.slice(i, i + 40)}`);
    if (m[0].trim()) tokens.push(m[0]);
    i = re.lastIndex;
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    const upper = t.toUpperCase();
    if (t.startsWith("`")) out.push(duckIdent(unquote(t)));
    else if (t.startsWith("'")) out.push(duckString(unescapeString(t.slice(1, -1))));
    else if (t.startsWith("@")) out.push(`$${t.slice(1)}`);
    else if (/^-?\d/.test(t) || /^(<=|>=|<>|!=|[=<>(),.])$/.test(t)) out.push(t === "!=" ? "<>" : t);
    else if (KEYWORDS.has(upper)) out.push(upper);
    else if ((upper === "DATE" || upper === "DATETIME" || upper === "TIMESTAMP") && tokens[i + 1]?.startsWith("'")) {
      const literal = duckString(unescapeString((tokens[++i] as string).slice(1, -1)));
      out.push(`${upper === "DATE" ? "DATE" : upper === "DATETIME" ? "TIMESTAMP" : "TIMESTAMPTZ"} ${literal}`);
    } else if (upper === "CURRENT_TIMESTAMP" && tokens[i + 1] === "(" && tokens[i + 2] === ")") {
      out.push("current_timestamp");
      i += 2;
    } else if (
      upper === "CAST" &&
      tokens[i + 1] === "(" &&
      tokens[i + 3]?.toUpperCase() === "AS" &&
      tokens[i + 4]?.toUpperCase() === "BYTES" &&
      tokens[i + 5] === ")"
    ) {
      out.push(`encode(${translateExpression(tokens[i + 2] as string)})`);
      i += 5;
    } else if (BARE.test(t)) out.push(duckIdent(t));
    else throw new EmulatorError("unsupported", `the emulator does not understand ${t} in: ${text.slice(0, 200)}`);
  }
  return out.join(" ").replaceAll(" . ", ".").replaceAll("( ", "(").replaceAll(" )", ")");
}

/** What a statement is, for the job runner. */
export interface Translated {
  readonly sql: readonly string[];
  /** Tables the statement reads or writes: they must exist (and not have expired). */
  readonly tables: readonly { dataset: string; table: string }[];
  /** `copy`: `CREATE OR REPLACE TABLE … COPY …`, done through the catalog. */
  readonly copy?: { readonly to: { dataset: string; table: string }; readonly from: { dataset: string; table: string } };
  /** `select_all`: results take the table's own field types. */
  readonly selectAll?: { dataset: string; table: string };
}

type Shape = StatementShape<void> & { translateBq(m: RegExpExecArray): Translated };

const shape = (
  name: string,
  kind: Shape["kind"],
  pattern: RegExp,
  translateBq: (m: RegExpExecArray) => Translated,
  writes?: (m: RegExpExecArray) => string[],
): Shape => ({
  name,
  kind,
  pattern,
  translateBq,
  translate: (m) => ({ sql: translateBq(m).sql }),
  ...(writes ? { writes } : {}),
});

const tx = (name: string, word: string, action: "begin" | "commit" | "rollback"): Shape => ({
  name,
  kind: "transaction",
  pattern: new RegExp(`^${word} TRANSACTION$`, "i"),
  translate: () => ({ action }),
  translateBq: () => ({ sql: [], tables: [] }),
});

/** An optional `WHERE` of a maximum read (a bound on the cursor). */
const WHERE = "(?: WHERE ([\\s\\S]+))?";
const where = (condition: string | undefined) => (condition ? ` WHERE ${translateExpression(condition)}` : "");

const refs = (...texts: (string | undefined)[]) => texts.map((t) => tableRef(t as string));

/**
 * The statements sqlload's BigQuery target sends, anchored on the whole statement, and what
 * each becomes in DuckDB. DELETE, MERGE and UPDATE claim their table (BigQuery aborts a second
 * transaction that mutates it); INSERT does not (BigQuery runs concurrent INSERTs).
 */
export const bigqueryShapes: readonly Shape[] = [
  tx("begin", "BEGIN", "begin"),
  tx("commit", "COMMIT", "commit"),
  tx("rollback", "ROLLBACK", "rollback"),
  shape(
    "delete_range",
    "dml",
    new RegExp(`^DELETE FROM ${TABLE} WHERE ([\\s\\S]+)$`),
    (m) => ({ sql: [`DELETE FROM ${duckOf(m[1] as string)} WHERE ${translateExpression(m[2] as string)}`], tables: refs(m[1]) }),
    (m) => [m[1] as string],
  ),
  shape("insert_select", "dml", new RegExp(`^INSERT INTO ${TABLE} \\(${COLS}\\) SELECT ${COLS} FROM ${TABLE}$`), (m) => {
    if (m[2] !== m[3]) throw new EmulatorError("unsupported", "INSERT … SELECT with different column lists");
    return {
      sql: [
        `INSERT INTO ${duckOf(m[1] as string)} (${duckColumns(m[2] as string)}) SELECT ${duckColumns(m[3] as string)} FROM ${duckOf(m[4] as string)}`,
      ],
      tables: refs(m[1], m[4]),
    };
  }),
  shape(
    "run_log_insert",
    "dml",
    new RegExp(
      `^INSERT INTO ${TABLE} \\(seq, run_id, table_name, target_name, \`at\`, format_version, body\\) SELECT COALESCE\\(MAX\\(seq\\), 0\\) \\+ 1, ((?:@\\w+)(?:, @\\w+){5}) FROM ${TABLE}$`,
    ),
    (m) => {
      if (m[1] !== m[3]) throw new EmulatorError("unsupported", "run-log INSERT reading another table");
      const table = duckOf(m[1] as string);
      return {
        sql: [
          `INSERT INTO ${table} (seq, run_id, table_name, target_name, "at", format_version, body) SELECT coalesce(max(seq), 0) + 1, ${translateExpression(m[2] as string)} FROM ${table}`,
        ],
        tables: refs(m[1]),
      };
    },
  ),
  shape(
    "lock_insert",
    "dml",
    new RegExp(
      `^INSERT INTO ${TABLE} \\(target_name, holder, expires_at\\) SELECT @target_name, @holder, TIMESTAMP_ADD\\(CURRENT_TIMESTAMP\\(\\), INTERVAL @ttl SECOND\\) FROM UNNEST\\(\\[1\\]\\) WHERE NOT EXISTS \\(SELECT 1 FROM ${TABLE} WHERE target_name = @target_name\\)$`,
    ),
    (m) => {
      const table = duckOf(m[1] as string);
      return {
        sql: [
          `INSERT INTO ${table} (target_name, holder, expires_at) SELECT $target_name, $holder, current_timestamp + to_seconds($ttl) WHERE NOT EXISTS (SELECT 1 FROM ${duckOf(m[2] as string)} WHERE target_name = $target_name)`,
        ],
        tables: refs(m[1], m[2]),
      };
    },
  ),
  shape(
    "lock_renew",
    "dml",
    new RegExp(
      `^UPDATE ${TABLE} SET expires_at = TIMESTAMP_ADD\\(CURRENT_TIMESTAMP\\(\\), INTERVAL @ttl SECOND\\) WHERE target_name = @target_name AND holder = @holder$`,
    ),
    (m) => ({
      sql: [
        `UPDATE ${duckOf(m[1] as string)} SET expires_at = current_timestamp + to_seconds($ttl) WHERE target_name = $target_name AND holder = $holder`,
      ],
      tables: refs(m[1]),
    }),
    (m) => [m[1] as string],
  ),
  shape(
    "merge",
    "dml",
    new RegExp(
      `^MERGE ${TABLE} AS target USING ${TABLE} AS stage ON ([\\s\\S]+?)(?: WHEN MATCHED THEN UPDATE SET ([\\s\\S]+?))? WHEN NOT MATCHED THEN INSERT \\(${COLS}\\) VALUES \\(([\\s\\S]+)\\)$`,
    ),
    (m) => {
      const set = m[4] ? ` WHEN MATCHED THEN UPDATE SET ${translateExpression(m[4])}` : "";
      return {
        sql: [
          `MERGE INTO ${duckOf(m[1] as string)} AS target USING ${duckOf(m[2] as string)} AS stage ON ${translateExpression(m[3] as string)}${set} WHEN NOT MATCHED THEN INSERT (${duckColumns(m[5] as string)}) VALUES (${translateExpression(m[6] as string)})`,
        ],
        tables: refs(m[1], m[2]),
      };
    },
    (m) => [m[1] as string],
  ),
  shape("copy", "ddl", new RegExp(`^CREATE OR REPLACE TABLE ${TABLE} COPY ${TABLE}$`), (m) => {
    const [to, from] = refs(m[1], m[2]) as [{ dataset: string; table: string }, { dataset: string; table: string }];
    return { sql: [], tables: [from], copy: { to, from } };
  }),
  shape("max", "query", new RegExp(`^SELECT CAST\\(MAX\\((${IDENT})\\) AS STRING\\) AS v FROM ${TABLE}${WHERE}$`), (m) => ({
    sql: [`SELECT CAST(max(${duckIdent(unquote(m[1] as string))}) AS VARCHAR) AS v FROM ${duckOf(m[2] as string)}${where(m[3])}`],
    tables: refs(m[2]),
  })),
  shape(
    "max_text",
    "query",
    new RegExp(`^SELECT CAST\\(MAX\\(CAST\\((${IDENT}) AS BYTES\\)\\) AS STRING\\) AS v FROM ${TABLE}${WHERE}$`),
    (m) => ({
      sql: [
        `SELECT decode(max(encode(${duckIdent(unquote(m[1] as string))}))) AS v FROM ${duckOf(m[2] as string)}${where(m[3])}`,
      ],
      tables: refs(m[2]),
    }),
  ),
  shape(
    "max_micros",
    "query",
    new RegExp(`^SELECT UNIX_MICROS\\((?:TIMESTAMP\\()?MAX\\((${IDENT})\\)\\)?\\) AS v FROM ${TABLE}${WHERE}$`),
    (m) => ({
      sql: [`SELECT epoch_us(max(${duckIdent(unquote(m[1] as string))})) AS v FROM ${duckOf(m[2] as string)}${where(m[3])}`],
      tables: refs(m[2]),
    }),
  ),
  shape(
    "select_where",
    "query",
    new RegExp(
      `^SELECT ((?:\\w+|\`\\w+\`)(?:, (?:\\w+|\`\\w+\`))*) FROM ${TABLE} WHERE ([\\s\\S]+?)( ORDER BY seq(?: DESC LIMIT (\\d+))?)?$`,
    ),
    (m) => ({
      sql: [
        `SELECT ${translateExpression(m[1] as string)} FROM ${duckOf(m[2] as string)} WHERE ${translateExpression(m[3] as string)}${m[4] ? " ORDER BY seq" : ""}${m[5] ? ` DESC LIMIT ${m[5]}` : ""}`,
      ],
      tables: refs(m[2]),
    }),
  ),
  shape("select_all", "query", new RegExp(`^SELECT \\* FROM ${TABLE}$`), (m) => {
    const [table] = refs(m[1]) as [{ dataset: string; table: string }];
    return { sql: [`SELECT * FROM ${duckOf(m[1] as string)}`], tables: [table], selectAll: table };
  }),
];
