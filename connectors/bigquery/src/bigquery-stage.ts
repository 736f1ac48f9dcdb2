import { createHash, randomBytes } from "node:crypto";

/** Stages expire on their own a day after creation, so a killed run leaves nothing that lasts. */
export const STAGE_LIFETIME_MS = 86_400_000;

/**
 * Names of a table's auxiliary tables: `_sqlload_stage_<h>_<token>` for a unit's rows and
 * `_sqlload_build_<h>_<token>` for a replace. `<h>` is a hash of the table's name (any name a
 * source has, within BigQuery's table-name rules), so the leftovers of one table can be found
 * and dropped by the next run that holds its lock, without touching another table's.
 */
export function auxPrefix(kind: "stage" | "build", table: string): string {
  const hash = createHash("sha256").update(table).digest("hex").slice(0, 16);
  return `_sqlload_${kind}_${hash}_`;
}

export function auxName(kind: "stage" | "build", table: string): string {
  return `${auxPrefix(kind, table)}${randomBytes(6).toString("hex")}`;
}
