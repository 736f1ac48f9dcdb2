import { createHash } from "node:crypto";

/**
 * The tables sqlload keeps beside a target table, all named `_sqlload_<kind>__<table>__<hash>_…`
 * in the table's database, so a person listing the database sees what they are and whose, and
 * the next run finds a crashed run's leftovers by prefix:
 * - `stage`: the rows of one commit unit, waiting for publish;
 * - `build`: the table a publish assembles (or `replace` builds) before swapping it in;
 * - `publish`: a publish's journal (its decision, in the table's comment), dropped once done;
 * - `lock`: the table's run lock, one generation per holder.
 * The table's name is shortened to what ClickHouse allows in a file name; the hash of the full
 * name keeps two long names apart.
 */
export type AuxKind = "stage" | "build" | "publish" | "lock";

export function tableTag(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 40);
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 10);
  return `${safe}__${hash}`;
}

/** Every auxiliary table of `name` of one kind starts with this. */
export function auxPrefix(kind: AuxKind, name: string): string {
  return `_sqlload_${kind}__${tableTag(name)}_`;
}

export function auxName(kind: AuxKind, name: string, suffix: string): string {
  return `${auxPrefix(kind, name)}${suffix}`;
}
