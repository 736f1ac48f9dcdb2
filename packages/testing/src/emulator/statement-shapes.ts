import { EmulatorError } from "./emulator-error.js";

/**
 * One statement shape a front end understands: a pattern anchored on the whole statement, and
 * what it becomes in DuckDB. Anything no shape matches is rejected, so an emulator can never
 * pass a statement whose meaning it does not know.
 */
export interface StatementShape<Context> {
  /** For failure injection and request logs: `begin`, `delete_range`, `merge`, … */
  readonly name: string;
  readonly kind: "query" | "dml" | "ddl" | "transaction";
  readonly pattern: RegExp;
  /** The DuckDB statements to run, or a front-end action for transaction control. */
  translate(match: RegExpExecArray, context: Context): Translation;
  /** The tables this statement writes (for table-level conflict claims). */
  writes?(match: RegExpExecArray): readonly string[];
}

export type Translation = { readonly sql: readonly string[] } | { readonly action: "begin" | "commit" | "rollback" };

export interface MatchedStatement<Context> {
  readonly shape: StatementShape<Context>;
  readonly match: RegExpExecArray;
  readonly text: string;
}

/** Finds the shape of one statement (whitespace folded, trailing `;` dropped); throws `unsupported` otherwise. */
export function matchStatement<Context>(shapes: readonly StatementShape<Context>[], text: string): MatchedStatement<Context> {
  const folded = text.trim().replace(/;\s*$/, "");
  for (const shape of shapes) {
    shape.pattern.lastIndex = 0;
    const match = shape.pattern.exec(folded);
    if (match) return { shape, match, text: folded };
  }
  throw new EmulatorError("unsupported", `the emulator does not understand this statement: ${folded.slice(0, 300)}`);
}

/**
 * Splits a script into statements at top-level semicolons, leaving those inside quotes, quoted
 * identifiers, comments and `BEGIN … END` blocks alone.
 */
export function splitStatements(script: string, options: { readonly blockKeywords?: boolean } = {}): string[] {
  const out: string[] = [];
  let start = 0;
  let depth = 0;
  let i = 0;
  const n = script.length;
  while (i < n) {
    const ch = script[i] as string;
    if (ch === "'" || ch === '"' || ch === "`") {
      i = skipQuoted(script, i, ch);
      continue;
    }
    if (ch === "-" && script[i + 1] === "-") {
      const end = script.indexOf("\n", i);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (ch === "/" && script[i + 1] === "*") {
      const end = script.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (options.blockKeywords && /[A-Za-z]/.test(ch) && !/[A-Za-z0-9_]/.test(script[i - 1] ?? " ")) {
      const word = /^[A-Za-z_]+/.exec(script.slice(i))?.[0].toUpperCase() ?? "";
      if (word === "ATOMIC" && /BEGIN\s+$/i.test(script.slice(start, i))) depth++;
      else if (word === "END" && depth > 0 && !/^END\s+(IF|LOOP|WHILE|FOR)\b/i.test(script.slice(i))) depth--;
      i += word.length;
      continue;
    }
    if (ch === ";" && depth === 0) {
      const statement = script.slice(start, i).trim();
      if (statement) out.push(statement);
      start = i + 1;
    }
    i++;
  }
  const last = script.slice(start).trim();
  if (last) out.push(last);
  return out;
}

/** The index just past a quoted run that starts at `i`; a doubled quote or a backslash escapes one. */
function skipQuoted(text: string, i: number, quote: string): number {
  let j = i + 1;
  while (j < text.length) {
    const ch = text[j];
    if (ch === "\\" && quote !== '"') {
      j += 2;
      continue;
    }
    if (ch === quote) {
      if (text[j + 1] === quote) {
        j += 2;
        continue;
      }
      return j + 1;
    }
    j++;
  }
  throw new EmulatorError("unsupported", `unterminated ${quote}-quoted text in: ${text.slice(i, i + 80)}`);
}
