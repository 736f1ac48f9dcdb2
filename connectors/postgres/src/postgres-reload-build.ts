import { RELOAD_BUILD_SUFFIX, type RunLogRow, type TargetTableRef } from "@sqlload/core";
import { findTable, type Queryable } from "./postgres-catalog.js";
import { derivedName, qualifiedName, quoteIdent } from "./postgres-dialect.js";
import { ensureRunLogTable, insertRunLogSql } from "./postgres-run-log.js";

/** Where a resumable reload of `ref` is built: beside it, in its schema (names cut to Postgres' 63 bytes). */
export function reloadBuildTable(ref: TargetTableRef): TargetTableRef {
  return { schema: ref.schema, name: derivedName(ref.name, RELOAD_BUILD_SUFFIX) };
}

/**
 * Puts the build in place of the table and appends the record ending the reload, in the
 * transaction the caller opened under the schema's DDL lock: Postgres' DDL is transactional, so readers see the old table
 * until COMMIT and the new one after (a query waiting on the table's lock then finds the new one).
 * The build's merge key index takes the name the table's own would have, so a later reload can
 * create its build's index again.
 */
export async function swapReloadBuild(client: Queryable, ref: TargetTableRef, row: RunLogRow): Promise<void> {
  const build = reloadBuildTable(ref);
  // The caller's transaction made the schema (beginSchemaDdlSql).
  await ensureRunLogTable(client, ref.schema);
  if ((await findTable(client, build)) !== null) {
    await client.query(`DROP TABLE IF EXISTS ${qualifiedName(ref)}`);
    await client.query(`ALTER TABLE ${qualifiedName(build)} RENAME TO ${quoteIdent(ref.name)}`);
    const index = { schema: ref.schema, name: derivedName(build.name, "__sqlload_pk") };
    await client.query(
      `ALTER INDEX IF EXISTS ${qualifiedName(index)} RENAME TO ${quoteIdent(derivedName(ref.name, "__sqlload_pk"))}`,
    );
  }
  await client.query(insertRunLogSql(ref.schema), [row.runId, row.table, row.at, row.formatVersion, row.body]);
}

/** Drops the build a reload left, if any (`--reload --restart`, or a build begun anew). */
export async function dropReloadBuild(client: Queryable, ref: TargetTableRef): Promise<void> {
  await client.query(`DROP TABLE IF EXISTS ${qualifiedName(reloadBuildTable(ref))}`);
}
