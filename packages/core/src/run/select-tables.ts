import { SqlloadError } from "../errors/sqlload-error.js";

/** Anything selectable: its source's name and its table name. */
export interface Selectable {
  readonly source: string;
  /** `<source>__<table>`, the name of its target table without schema. */
  readonly name: string;
}

/**
 * Picks tables as `load`/`plan` arguments name them (SPEC §2): `app__orders`, a source name
 * (`app`: all its tables), or a glob (`app__*`). No arguments: every table. A pattern matching
 * nothing is an error, so a typo never silently loads nothing.
 */
export function selectTables<T extends Selectable>(tables: readonly T[], patterns: readonly string[]): T[] {
  if (patterns.length === 0) return [...tables];
  const chosen = new Set<T>();
  for (const pattern of patterns) {
    const re = globToRegExp(pattern);
    const matches = tables.filter((t) => t.source === pattern || t.name === pattern || re.test(t.name));
    if (matches.length === 0) {
      const names = tables.map((t) => t.name);
      throw new SqlloadError("SL114", `no table matches \`${pattern}\``, {
        hint: names.length
          ? `Tables: ${names.join(", ")}; sources: ${[...new Set(tables.map((t) => t.source))].join(", ")}.`
          : "The project has no tables yet.",
      });
    }
    for (const m of matches) chosen.add(m);
  }
  return tables.filter((t) => chosen.has(t));
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}
