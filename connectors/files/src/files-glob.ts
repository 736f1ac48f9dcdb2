/**
 * A table's `glob` as a regular expression over paths relative to the source folder (with `/`):
 * `**` matches any number of folders (none too), `*` and `?` stay within one name, `[abc]` and
 * `[!abc]` are character classes, `{a,b}` alternatives. Matching runs on the store's listing,
 * so it works the same for any FileStore.
 */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  let i = 0;
  let braces = 0;
  while (i < glob.length) {
    const c = glob[i] as string;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const atStart = i === 0 || glob[i - 1] === "/";
        const atEnd = i + 2 === glob.length || glob[i + 2] === "/";
        if (atStart && atEnd) {
          // `**/` matches zero or more whole folders; a trailing `**` anything below.
          if (i + 2 === glob.length) out += ".*";
          else {
            out += "(?:[^/]*/)*";
            i++;
          }
          i += 2;
          continue;
        }
      }
      out += "[^/]*";
      i++;
      continue;
    }
    if (c === "?") {
      out += "[^/]";
      i++;
      continue;
    }
    if (c === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end > 0) {
        let body = glob.slice(i + 1, end);
        const negate = body.startsWith("!") || body.startsWith("^");
        if (negate) body = body.slice(1);
        out += `[${negate ? "^/" : ""}${body.replace(/[\\\]^]/g, (m) => `\\${m}`)}]`;
        i = end + 1;
        continue;
      }
    }
    if (c === "{") {
      braces++;
      out += "(?:";
      i++;
      continue;
    }
    if (c === "}" && braces > 0) {
      braces--;
      out += ")";
      i++;
      continue;
    }
    if (c === "," && braces > 0) {
      out += "|";
      i++;
      continue;
    }
    out += c.replace(/[.+^$()|\\{}[\]]/g, (m) => `\\${m}`);
    i++;
  }
  return new RegExp(`^${out}$`, "u");
}

/**
 * A glob matching `text` itself: the pattern characters `*`, `?`, `[` and `{` are bracketed
 * (`[*]`), so a table named `orders [2026]` finds the folder of that name. (A `}` or `,` is
 * literal outside braces, and a `]` outside a class.)
 */
export function literalGlob(text: string): string {
  return text.replace(/[*?[{]/g, (c) => `[${c}]`);
}

/** The folder a glob's matches all lie under (its part before the first pattern character), to list less. */
export function globBase(glob: string): string {
  const parts = glob.split("/");
  const fixed: string[] = [];
  for (const part of parts.slice(0, -1)) {
    if (/[*?[{]/.test(part)) break;
    fixed.push(part);
  }
  return fixed.join("/");
}
