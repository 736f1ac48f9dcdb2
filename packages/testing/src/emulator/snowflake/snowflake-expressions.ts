import { EmulatorError } from "../emulator-error.js";

/**
 * Snowflake expressions as DuckDB runs them, for the few functions and types sqlload's Snowflake
 * connector writes. A function or type not listed here is rejected, so the emulator never guesses
 * what a statement means. DuckDB compares VARCHAR by byte, which for UTF-8 is code point order:
 * exactly what `COLLATE(c, 'utf8')` asks of Snowflake, so only that collation is accepted.
 */

type Token = { kind: "word" | "ident" | "string" | "other"; text: string };

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '"' || ch === "'") {
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) throw new EmulatorError("unsupported", `unterminated ${ch}-quoted text in: ${sql.slice(i, i + 80)}`);
        if (sql[j] === ch) {
          if (sql[j + 1] === ch) {
            j += 2;
            continue;
          }
          break;
        }
        if (ch === "'" && sql[j] === "\\") {
          throw new EmulatorError("unsupported", "the emulator does not translate backslash escapes in string literals");
        }
        j++;
      }
      tokens.push({ kind: ch === '"' ? "ident" : "string", text: sql.slice(i, j + 1) });
      i = j + 1;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i));
    if (word) {
      tokens.push({ kind: "word", text: word[0] });
      i += word[0].length;
      continue;
    }
    const other = /^(::|<=|>=|<>|!=|\d+(\.\d+)?|.)/s.exec(sql.slice(i)) as RegExpExecArray;
    tokens.push({ kind: "other", text: other[0] });
    i += other[0].length;
  }
  return tokens;
}

/** Snowflake column types sqlload writes, as DuckDB types. */
export function duckType(snowflakeType: string): string {
  const t = snowflakeType.trim().toUpperCase().replace(/\s+/g, "");
  const number = /^(NUMBER|DECIMAL|NUMERIC)\((\d+),(\d+)\)$/.exec(t);
  if (number) return `DECIMAL(${number[2]},${number[3]})`;
  if (/^VARCHAR(\(\d+\))?$/.test(t) || t === "TEXT" || t === "STRING") return "VARCHAR";
  const simple: Record<string, string> = {
    BOOLEAN: "BOOLEAN",
    FLOAT: "DOUBLE",
    BINARY: "BLOB",
    VARIANT: "JSON",
    ARRAY: "JSON",
    DATE: "DATE",
    "TIME(6)": "TIME",
    "TIMESTAMP_NTZ(6)": "TIMESTAMP",
    "TIMESTAMP_TZ(6)": "TIMESTAMPTZ",
  };
  const duck = simple[t];
  if (!duck) throw new EmulatorError("unsupported", `the emulator does not know the Snowflake type ${snowflakeType}`);
  return duck;
}

type Rewrite = (args: string[]) => string;

const cast =
  (type: string): Rewrite =>
  (args) => {
    if (args.length !== 1) throw new EmulatorError("unsupported", `expected one argument, got ${args.length}`);
    return `CAST(${args[0]} AS ${type})`;
  };

const FUNCTIONS: Readonly<Record<string, Rewrite>> = {
  COLLATE: ([value, collation]) => {
    if (collation?.toLowerCase() !== "'utf8'") {
      throw new EmulatorError(
        "unsupported",
        `the emulator compares text by code point only: COLLATE(…, 'utf8'), not ${collation}`,
      );
    }
    return `(${value})`;
  },
  MAX: (args) => `max(${args.join(", ")})`,
  COALESCE: (args) => `coalesce(${args.join(", ")})`,
  ROW_NUMBER: (args) => `row_number(${args.join(", ")})`,
  STARTSWITH: ([a, b]) => `starts_with(${a}, ${b})`,
  TO_VARCHAR: ([value, format]) => {
    if (format === undefined) return `CAST(${value} AS VARCHAR)`;
    if (format === "'YYYY-MM-DD'") return `strftime(${value}, '%Y-%m-%d')`;
    // DuckDB prints a TIME's fraction only when it has one; the reader takes both forms.
    if (format === "'HH24:MI:SS.FF6'") return `CAST(${value} AS VARCHAR)`;
    throw new EmulatorError("unsupported", `the emulator does not know the format ${format}`);
  },
  DATE_PART: ([part, value]) => {
    if (part?.toUpperCase() !== "EPOCH_MICROSECOND") throw new EmulatorError("unsupported", `DATE_PART(${part}, …)`);
    return `epoch_us(${value})`;
  },
  TO_BOOLEAN: cast("BOOLEAN"),
  TO_NUMBER: ([value, p, s]) => `CAST(${value} AS DECIMAL(${p ?? 38},${s ?? 0}))`,
  TO_DOUBLE: cast("DOUBLE"),
  HEX_DECODE_BINARY: ([value]) => `unhex(${value})`,
  HEX_ENCODE: ([value]) => `hex(${value})`,
  PARSE_JSON: cast("JSON"),
  TO_ARRAY: ([value]) => `(${value})`,
  TO_JSON: cast("VARCHAR"),
  TO_DATE: cast("DATE"),
  TO_TIME: cast("TIME"),
  TO_TIMESTAMP_NTZ: cast("TIMESTAMP"),
  TO_TIMESTAMP_TZ: cast("TIMESTAMPTZ"),
};

/** Words that may stand before `(` without being a function call. */
const NOT_CALLS = new Set(["IN", "VALUES", "AND", "OR", "NOT", "ON", "AS", "OVER", "BY", "USING", "SELECT", "WHERE", "INSERT"]);

/** One Snowflake expression (or clause) as DuckDB text. */
export function rewriteExpression(sql: string): string {
  return render(tokenize(sql), 0, undefined).text;
}

function render(tokens: Token[], start: number, close: string | undefined): { text: string; end: number } {
  let out = "";
  let i = start;
  const emit = (text: string) => {
    out += out && !/^[),.]/.test(text) && !/[(.]$/.test(out) ? ` ${text}` : text;
  };
  while (i < tokens.length) {
    const token = tokens[i] as Token;
    if (close && token.text === close) return { text: out, end: i };
    if (token.text === "::") {
      const type = tokens[i + 1];
      if (type?.kind !== "word") throw new EmulatorError("unsupported", "a cast without a type");
      let text = type.text;
      let j = i + 2;
      if (tokens[j]?.text === "(") {
        while (j < tokens.length && tokens[j]?.text !== ")") text += (tokens[j++] as Token).text;
        text += ")";
        j++;
      }
      out += `::${duckType(text)}`;
      i = j;
      continue;
    }
    if (token.kind === "word" && tokens[i + 1]?.text === "(" && !NOT_CALLS.has(token.text.toUpperCase())) {
      const rewrite = FUNCTIONS[token.text.toUpperCase()];
      if (!rewrite) throw new EmulatorError("unsupported", `the emulator does not know the function ${token.text}`);
      const args: string[] = [];
      let j = i + 2;
      let arg: Token[] = [];
      let depth = 0;
      for (; j < tokens.length; j++) {
        const t = tokens[j] as Token;
        if (t.text === "(") depth++;
        if (t.text === ")") {
          if (depth === 0) break;
          depth--;
        }
        if (t.text === "," && depth === 0) {
          args.push(render(arg, 0, undefined).text);
          arg = [];
          continue;
        }
        arg.push(t);
      }
      if (arg.length) args.push(render(arg, 0, undefined).text);
      emit(rewrite(args));
      i = j + 1;
      continue;
    }
    if (token.text === "(") {
      const inner = render(tokens, i + 1, ")");
      emit(`(${inner.text})`);
      i = inner.end + 1;
      continue;
    }
    emit(token.text);
    i++;
  }
  if (close) throw new EmulatorError("unsupported", `missing ${close}`);
  return { text: out, end: i };
}
