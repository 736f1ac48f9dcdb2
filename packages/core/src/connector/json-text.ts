/**
 * The JSON text of a value a table function gave for a `json` column, or undefined when it has
 * none (a circular structure, `undefined`). Bigints are written as the JSON numbers they are, all
 * their digits: an API's ids parsed with a bigint-aware parser must not fail the load or lose
 * digits, and JSON.stringify alone throws on them.
 */
export function jsonText(value: unknown): string | undefined {
  let bigints = false;
  let text: string | undefined;
  try {
    text = JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v !== "bigint") return v;
      bigints = true;
      return `${MARK}${v}`;
    });
  } catch {
    return undefined;
  }
  return bigints && text !== undefined ? text.replace(MARKED, "$1") : text;
}

// A string no value holds: a NUL (which JSON writes as \u0000) and a nonce of this process.
const NONCE = Math.random().toString(36).slice(2, 12);
const MARK = `\u0000${NONCE}:`;
const MARKED = new RegExp(`"\\\\u0000${NONCE}:(-?\\d+)"`, "g");
