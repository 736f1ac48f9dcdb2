import {
  DEFAULT_LEASE_TIMING,
  holdLease,
  type LeaseHolder,
  type LeaseTiming,
  leaseHolder,
  leaseIsStale,
  parseLeaseHolder,
  SqlloadError,
} from "@sqlload/core";
import { tablesWithPrefix } from "./clickhouse-catalog.js";
import { qualifiedName, stringLiteral } from "./clickhouse-dialect.js";
import { auxName, auxPrefix } from "./clickhouse-names.js";
import type { ClickHouseSession } from "./clickhouse-session.js";
import { alreadyExists } from "./errors.js";

/** Who holds a lock, in the lock table's comment: a lease holder, and since when it holds it. */
interface Holder extends LeaseHolder {
  readonly since: number;
}

/** How often a holder renews the lock, and when a silent one is taken over. */
export type LockTiming = LeaseTiming;

export const DEFAULT_LOCK_TIMING: LockTiming = DEFAULT_LEASE_TIMING;

/**
 * A table's run lock, made of what ClickHouse does atomically: CREATE TABLE of a name fails when
 * the name exists. The lock of table T is the table `_sqlload_lock__T…_<generation>` with the
 * highest generation; its comment names the holder, who renews it while the run lasts. A lock
 * whose holder is gone (a process of this host that no longer exists, any other process on a
 * chdb folder, which only one process can open, or a holder silent for `staleMs`) is taken over
 * by creating the next generation: of two runs racing for it, one creates it and the other finds
 * it held. ClickHouse offers no fencing, so a holder frozen past `staleMs` can overlap its
 * successor; the timing keeps that to runs stalled for minutes.
 */
export async function acquireTableLock(
  session: ClickHouseSession,
  database: string,
  table: string,
  token: string,
  timing: LockTiming = DEFAULT_LOCK_TIMING,
): Promise<{ release(): Promise<void> }> {
  const prefix = auxPrefix("lock", table);
  for (let attempt = 0; attempt < 3; attempt++) {
    const locks = (await tablesWithPrefix(session, database, prefix))
      .map((t) => ({ name: t.name, generation: Number(t.name.slice(prefix.length)), holder: parseHolder(t.comment) }))
      .filter((l) => Number.isSafeInteger(l.generation))
      .sort((a, b) => a.generation - b.generation);
    const top = locks[locks.length - 1];
    if (top && !isStale(top.holder, session.kind, timing)) {
      const h = top.holder;
      const who = h ? `process ${h.pid} on ${h.host}, since ${new Date(h.since).toISOString()}` : "another run";
      throw new SqlloadError("SL306", `table ${database}.${table} is being loaded by ${who}`, { table: `${database}.${table}` });
    }
    const generation = (top?.generation ?? 0) + 1;
    const name = auxName("lock", table, String(generation).padStart(6, "0"));
    const lease = leaseHolder(token);
    const holder: Holder = { ...lease, since: lease.beat };
    try {
      await session.command(
        `CREATE TABLE ${qualifiedName(database, name)} (held UInt8) ENGINE = Memory COMMENT ${stringLiteral(JSON.stringify(holder))}`,
      );
    } catch (error) {
      if (alreadyExists(error)) continue;
      throw error;
    }
    for (const old of locks)
      await session.command(`DROP TABLE IF EXISTS ${qualifiedName(database, old.name)} SYNC`).catch(() => undefined);
    return heldLock(session, database, name, holder, timing);
  }
  throw new SqlloadError("SL306", `table ${database}.${table} is being locked by another run at the same moment`, {
    table: `${database}.${table}`,
  });
}

function heldLock(session: ClickHouseSession, database: string, name: string, holder: Holder, timing: LockTiming) {
  const table = qualifiedName(database, name);
  return holdLease(
    (beat) => session.command(`ALTER TABLE ${table} MODIFY COMMENT ${stringLiteral(JSON.stringify({ ...holder, beat }))}`),
    timing.heartbeatMs,
    async () => {
      // Dropped only while still ours: a run that overran `staleMs` may have been taken over.
      const rows = await session.query<{ comment: string }>(
        "SELECT comment FROM system.tables WHERE database = {db:String} AND name = {name:String}",
        { db: database, name },
      );
      if (rows[0] && parseHolder(rows[0].comment)?.token === holder.token) {
        await session.command(`DROP TABLE IF EXISTS ${table} SYNC`);
      }
    },
  );
}

/** A lock table's comment; undefined when sqlload cannot read it (not its own, or damaged). */
function parseHolder(comment: string): Holder | undefined {
  const lease = parseLeaseHolder(comment);
  return lease && { ...lease, since: Number(lease.since ?? lease.beat) };
}

function isStale(holder: Holder | undefined, kind: ClickHouseSession["kind"], timing: LockTiming): boolean {
  // chdb holds its folder for one process: a lock of any other process is a dead run's.
  if (holder && kind === "chdb" && holder.pid !== process.pid) return true;
  return leaseIsStale(holder, timing);
}
