import { hostname } from "node:os";
import { formatTargetTable, SqlloadError, type TargetTableRef } from "@sqlload/core";
import { isAlreadyExists } from "./errors.js";
import { qualifiedTable } from "./snowflake-dialect.js";
import type { SnowflakeSession } from "./snowflake-session.js";

/** Who holds a lock: the one row of the lock table. */
interface Holder {
  readonly token: string;
  readonly host: string;
  readonly pid: number;
  /** When the holder last said it is alive (ms since the epoch, its own clock). */
  readonly beat: number;
}

export interface LockTiming {
  readonly heartbeatMs: number;
  /** A lock not renewed for this long is taken over. */
  readonly staleMs: number;
}

export const DEFAULT_LOCK_TIMING: LockTiming = { heartbeatMs: 15_000, staleMs: 90_000 };

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
      if (holder && !isStale(holder, timing)) {
        throw new SqlloadError(
          "SL306",
          `table ${formatTargetTable(ref)} is being loaded by process ${holder.pid} on ${holder.host}, since ${new Date(holder.beat).toISOString()} or before`,
          { table: formatTargetTable(ref) },
        );
      }
      await session.run(`DROP TABLE IF EXISTS ${table}`);
      continue;
    }
    const holder: Holder = { token, host: hostname(), pid: process.pid, beat: Date.now() };
    await session.run(`INSERT INTO ${table} ("holder") VALUES (?)`, [JSON.stringify(holder)]);
    return heldLock(session, table, holder, timing);
  }
  throw new SqlloadError("SL306", `table ${formatTargetTable(ref)} is being locked by another run at the same moment`, {
    table: formatTargetTable(ref),
  });
}

function heldLock(session: SnowflakeSession, table: string, holder: Holder, timing: LockTiming) {
  let beating: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    const renewed = JSON.stringify({ ...holder, beat: Date.now() });
    beating = session.run(`UPDATE ${table} SET "holder" = ?`, [renewed]).catch(() => undefined);
  }, timing.heartbeatMs);
  timer.unref();
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await beating;
      // Dropped only while still ours: a run that overran `staleMs` may have been taken over.
      const current = await readHolder(session, table).catch(() => undefined);
      if (current?.token === holder.token) await session.run(`DROP TABLE IF EXISTS ${table}`);
    },
  };
}

async function readHolder(session: SnowflakeSession, table: string): Promise<Holder | undefined> {
  const rows = await session.run(`SELECT "holder" FROM ${table}`);
  try {
    const value = JSON.parse(String(rows[0]?.holder)) as Partial<Holder>;
    if (typeof value.token === "string" && typeof value.pid === "number" && typeof value.beat === "number") {
      return { token: value.token, host: String(value.host ?? ""), pid: value.pid, beat: value.beat };
    }
  } catch {
    // No row (a run died between creating the lock and naming itself) or one sqlload cannot read.
  }
  return undefined;
}

function isStale(holder: Holder, timing: LockTiming): boolean {
  if (holder.host === hostname() && holder.pid !== process.pid && !processExists(holder.pid)) return true;
  return Date.now() - holder.beat > timing.staleMs;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
