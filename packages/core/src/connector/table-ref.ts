import { SqlloadError } from "../errors/sqlload-error.js";

/** A source table as its source names it: `public.orders` → `{ schema: "public", name: "orders" }`. */
export interface SourceTableRef {
  readonly schema?: string | undefined;
  readonly name: string;
  /** The key as written in `sqlload.toml`. */
  readonly key: string;
}

/** A table in the target: `raw.app__orders`. */
export interface TargetTableRef {
  readonly schema: string;
  readonly name: string;
}

/**
 * What a resumable reload's build table adds to the table's name (`raw.app__orders__sqlload_reload`),
 * as `load --help` and the docs promise; a target that must shorten names keeps it at the end.
 */
export const RELOAD_BUILD_SUFFIX = "__sqlload_reload";

/**
 * Splits a table key into its parts: `public.orders`, `orders`, `public."Odd ""Name"""`.
 * A part holding dots, quotes, spaces or upper case is written as a quoted SQL identifier.
 */
export function parseTableKey(key: string): SourceTableRef {
  const parts: string[] = [];
  let i = 0;
  const bad = (why: string): never => {
    throw new SqlloadError("SL110", `table key ${JSON.stringify(key)} is not valid: ${why}`);
  };
  while (i < key.length) {
    if (key[i] === '"') {
      let part = "";
      i++;
      for (;;) {
        if (i >= key.length) bad("a quoted part is not closed");
        if (key[i] === '"') {
          if (key[i + 1] === '"') {
            part += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        part += key[i];
        i++;
      }
      if (part === "") bad("a quoted part is empty");
      parts.push(part);
    } else {
      const end = key.indexOf(".", i);
      const part = key.slice(i, end < 0 ? key.length : end);
      if (!/^[a-z_][a-z0-9_$]*$/.test(part)) {
        bad(`${JSON.stringify(part)} must be lower case letters, digits and _, or a quoted identifier`);
      }
      parts.push(part);
      i += part.length;
    }
    if (i < key.length) {
      if (key[i] !== ".") bad(`expected "." after a part, found ${JSON.stringify(key[i])}`);
      i++;
      if (i >= key.length) bad("it ends with a dot");
    }
  }
  if (parts.length === 0) bad("it is empty");
  if (parts.length > 2) bad("give at most a schema and a table name");
  const name = parts[parts.length - 1] as string;
  return parts.length === 2 ? { schema: parts[0], name, key } : { name, key };
}

/** The target table of a source table: `<schema>.<source>__<table>`. */
export function targetTableFor(schema: string, source: string, table: SourceTableRef): TargetTableRef {
  return { schema, name: `${source}__${table.name}` };
}

/** `raw.app__orders`, quoting parts only where a reader would otherwise misread them. */
export function formatTargetTable(ref: TargetTableRef): string {
  const part = (p: string) => (/^[a-z_][a-z0-9_$]*$/.test(p) ? p : `"${p.replaceAll('"', '""')}"`);
  return `${part(ref.schema)}.${part(ref.name)}`;
}
