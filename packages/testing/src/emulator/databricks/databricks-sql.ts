import { EmulatorError } from "../emulator-error.js";
import { skipQuoted } from "../statement-shapes.js";

/**
 * Databricks SQL → DuckDB SQL, for the few constructs the connector's statements use and the two
 * engines spell differently: backtick identifiers, `:name` parameter markers, Spark type names
 * (`STRING`, `TIMESTAMP` = an instant, `TIMESTAMP_NTZ` = wall-clock), `COLLATE UTF8_BINARY`
 * (DuckDB already compares text by code point), `unix_micros`/`unix_date`, `unhex`, and
 * `TBLPROPERTIES`. Quoted text is never touched.
 */
export function toDuckDbSql(sql: string): string {
  let out = "";
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i] as string;
    if (ch === "'") {
      const end = skipQuoted(sql, i, "'");
      out += sql.slice(i, end);
      i = end;
      continue;
    }
    if (ch === "`") {
      const end = skipQuoted(sql, i, "`");
      const name = sql.slice(i + 1, end - 1).replaceAll("``", "`");
      out += `"${name.replaceAll('"', '""')}"`;
      i = end;
      continue;
    }
    if (ch === ":" && /[A-Za-z_]/.test(sql[i + 1] ?? "") && sql[i - 1] !== ":") {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i + 1))?.[0] as string;
      out += `$${name}`;
      i += 1 + name.length;
      continue;
    }
    if (/[A-Za-z_]/.test(ch) && !/[A-Za-z0-9_$]/.test(sql[i - 1] ?? " ")) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i))?.[0] as string;
      out += translateWord(word, sql.slice(i + word.length));
      i += word.length;
      continue;
    }
    out += ch;
    i++;
  }
  return out
    .replace(/\s+COLLATE\s+UTF8_BINARY\b/gi, "")
    .replace(/\s+TBLPROPERTIES\s*\((?:[^()']|'(?:[^']|'')*')*\)/gi, "")
    .replace(/\bunix_date\s*\(/gi, "datediff('day', DATE '1970-01-01', ")
    .replace(/\bfrom_json\((\$?\w+), 'ARRAY<STRING>'\)/gi, "CAST(CAST($1 AS JSON) AS VARCHAR[])")
    .replace(/\btransform\(/gi, "list_transform(")
    .replace(/(?:\bARRAY<)+[A-Z_]+(?:\(\d+,\d+\))?>+/gi, arrayType);
}

/** `ARRAY<ARRAY<DATE>>` → `DATE[][]`, at any depth. */
function arrayType(spark: string): string {
  const depth = (spark.match(/ARRAY</gi) ?? []).length;
  return `${spark.replace(/ARRAY<|>/gi, "")}${"[]".repeat(depth)}`;
}

function translateWord(word: string, rest: string): string {
  const upper = word.toUpperCase();
  switch (upper) {
    case "STRING":
      return "VARCHAR";
    case "TIMESTAMP":
      // `TIMESTAMP '…'` literals and the type alike: Databricks' TIMESTAMP is an instant.
      return "TIMESTAMPTZ";
    case "TIMESTAMP_NTZ":
      return "TIMESTAMP";
    case "BINARY":
      return "BLOB";
    case "UNIX_MICROS":
      return "epoch_us";
    case "UNHEX":
      return "from_hex";
    case "INT":
      return /^\s*\(/.test(rest) ? word : "INTEGER";
    default:
      return word;
  }
}

/**
 * A DuckDB column type as Databricks' `information_schema.columns.full_data_type` spells it,
 * for the types the connector creates.
 */
export function databricksTypeName(duckdbType: string): string {
  const t = duckdbType.trim().toUpperCase();
  if (t.endsWith("[]")) return `array<${databricksTypeName(t.slice(0, -2))}>`;
  const decimal = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(t);
  if (decimal) return `decimal(${decimal[1]},${decimal[2]})`;
  const names: Record<string, string> = {
    BOOLEAN: "boolean",
    TINYINT: "tinyint",
    SMALLINT: "smallint",
    INTEGER: "int",
    BIGINT: "bigint",
    FLOAT: "float",
    DOUBLE: "double",
    VARCHAR: "string",
    BLOB: "binary",
    DATE: "date",
    TIMESTAMP: "timestamp_ntz",
    "TIMESTAMP WITH TIME ZONE": "timestamp",
  };
  const name = names[t];
  if (!name) throw new EmulatorError("unsupported", `the emulator has no Databricks name for the DuckDB type ${duckdbType}`);
  return name;
}
