import type { TargetTableRef } from "@sqlload/core";
import { qualifiedTable, quoteIdent } from "./snowflake-dialect.js";
import type { SnowflakeSession } from "./snowflake-session.js";

/** A unit's token: random hex and a counter, so no two units name a table alike. */
const TOKEN = /^[0-9a-f]{8}_\d+$/;

/**
 * The name of the table a `replace` unit builds: `_sqlload_new_<table>__<token>`. Temporary stages
 * vanish with their session; these are permanent, so a run killed before its swap (or right after
 * it, before dropping the old table) leaves one behind for the next run to drop.
 */
export function builtTableRef(ref: TargetTableRef, token: string): TargetTableRef {
  return { schema: ref.schema, name: `_sqlload_new_${ref.name}__${token}` };
}

/** Drops what earlier runs of `ref` left (called while holding its lock, so none of them is live). */
export async function dropLeftovers(session: SnowflakeSession, database: string, ref: TargetTableRef): Promise<void> {
  const prefix = `_sqlload_new_${ref.name}__`;
  const rows = await session.runRetrying(
    `SELECT "TABLE_NAME" AS "name" FROM ${quoteIdent(database)}."INFORMATION_SCHEMA"."TABLES" WHERE "TABLE_SCHEMA" = ? AND STARTSWITH("TABLE_NAME", ?)`,
    [ref.schema, prefix],
  );
  for (const row of rows) {
    const name = String(row.name);
    if (!TOKEN.test(name.slice(prefix.length))) continue;
    await session.runRetrying(`DROP TABLE IF EXISTS ${qualifiedTable({ schema: ref.schema, name })}`);
  }
}
