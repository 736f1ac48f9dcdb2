import {
  DEFAULT_LEASE_TIMING,
  formatTargetTable,
  holdLease,
  type LeaseHolder,
  type LeaseTiming,
  leaseHolder,
  leaseIsStale,
  parseLeaseHolder,
  SqlloadError,
  type TargetTableRef,
} from "@sqlload/core";
import { isAlreadyExists } from "./errors.js";
import { qualifiedTable } from "./snowflake-dialect.js";
import type { SnowflakeSession } from "./snowflake-session.js";

/** How often a holder renews the lock, and when a silent one is taken over. */
export type LockTiming = LeaseTiming;

export const DEFAULT_LOCK_TIMING: LockTiming = DEFAULT_LEASE_TIMING;

export function lockRef(ref: TargetTableRef): TargetTableRef {
  return { schema: ref.schema, name: `_sqlload_lock__${ref.name}` };
}

/**
 * A table's run lock, built on what Snowflake does atomically: CREATE TABLE of a name that
 * exists fails (002002). The lock table's row names the holder, who renews it while the run
 * lasts; a holder that is gone (a dead process of this host, or silent for `staleMs`) is taken
 * over. Snowflake offers no fencing: a holder frozen past `staleMs` can overlap its successor.
 */
export async function acquireTableLock(
  session: SnowflakeSession,
  ref: TargetTableRef,
  token: string,
  timing: LockTiming = DEFAULT_LOCK_TIMING,
): Promise<{ release(): Promise<void> }> {
  const table = qualifiedTable(lockRef(ref));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await session.run(`CREATE TABLE ${table} ("holder" VARCHAR)`);
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      const holder = await readHolder(session, table);
      if (holder && !leaseIsStale(holder, timing)) {
        throw new SqlloadError(
          "SL306",
          `table ${formatTargetTable(ref)} is being loaded by process ${holder.pid} on ${holder.host}, since ${new Date(holder.beat).toISOString()} or before`,
          { table: formatTargetTable(ref) },
        );
      }
      await session.run(`DROP TABLE IF EXISTS ${table}`);
      continue;
    }
    const holder = leaseHolder(token);
    await session.run(`INSERT INTO ${table} ("holder") VALUES (?)`, [JSON.stringify(holder)]);
    return heldLock(session, table, holder, timing);
  }
  throw new SqlloadError("SL306", `table ${formatTargetTable(ref)} is being locked by another run at the same moment`, {
    table: formatTargetTable(ref),
  });
}

function heldLock(session: SnowflakeSession, table: string, holder: LeaseHolder, timing: LockTiming) {
  return holdLease(
    (beat) => session.run(`UPDATE ${table} SET "holder" = ?`, [JSON.stringify({ ...holder, beat })]),
    timing.heartbeatMs,
    async () => {
      // Dropped only while still ours: a run that overran `staleMs` may have been taken over.
      const current = await readHolder(session, table).catch(() => undefined);
      if (current?.token === holder.token) await session.run(`DROP TABLE IF EXISTS ${table}`);
    },
  );
}

/** The lock table's one row; none when a run died between creating the lock and naming itself. */
async function readHolder(session: SnowflakeSession, table: string): Promise<LeaseHolder | undefined> {
  const rows = await session.run(`SELECT "holder" FROM ${table}`);
  return parseLeaseHolder(rows[0]?.holder);
}
