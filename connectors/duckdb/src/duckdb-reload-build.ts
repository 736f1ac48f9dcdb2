import type { RunLogRow, TargetTableRef } from "@sqlload/core";
import { relationExists } from "./duckdb-catalog.js";
import { reloadBuildName } from "./duckdb-commit-unit.js";
import type { DuckDBDatabase } from "./duckdb-database.js";
import { qualifiedName, quoteIdent } from "./duckdb-dialect.js";
import { ensureRunLogTable, insertRunLog } from "./duckdb-run-log.js";

/** Where a resumable reload of `ref` is built: beside it, in its schema. */
export function reloadBuildTable(ref: TargetTableRef): TargetTableRef {
  return { schema: ref.schema, name: reloadBuildName(ref.name) };
}

/**
 * Puts the build in place of the table and appends the record ending the reload, in one
 * transaction on a connection of its own: DuckDB's DDL is transactional, so a reader sees the old
 * table until COMMIT and the new one after, and a failure leaves both as they were. Serialized
 * with the other catalog changes (see `DuckDBDatabase.serialize`).
 */
export async function swapReloadBuild(db: DuckDBDatabase, ref: TargetTableRef, row: RunLogRow): Promise<void> {
  await db.serialize(async () => {
    const connection = await db.connect();
    try {
      await connection.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(ref.schema)}`);
      await ensureRunLogTable(connection, ref.schema);
      const build = reloadBuildTable(ref);
      const exists = await relationExists(connection, build.schema, build.name);
      await connection.run("BEGIN TRANSACTION");
      try {
        if (exists) {
          await connection.run(`DROP TABLE IF EXISTS ${qualifiedName(ref.schema, ref.name)}`);
          await connection.run(`ALTER TABLE ${qualifiedName(build.schema, build.name)} RENAME TO ${quoteIdent(ref.name)}`);
        }
        await insertRunLog(connection, ref.schema, ref.name, row);
        await connection.run("COMMIT");
      } catch (error) {
        await connection.run("ROLLBACK").catch(() => undefined);
        throw error;
      }
    } finally {
      db.disconnect(connection);
    }
  });
}

/** Drops the build a reload left, if any (`--reload --restart`, or a build begun anew). */
export async function dropReloadBuild(db: DuckDBDatabase, ref: TargetTableRef): Promise<void> {
  await db.serialize(async () => {
    const connection = await db.connect();
    try {
      const build = reloadBuildTable(ref);
      await connection.run(`DROP TABLE IF EXISTS ${qualifiedName(build.schema, build.name)}`);
    } finally {
      db.disconnect(connection);
    }
  });
}
