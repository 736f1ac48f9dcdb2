import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { type Column, leaseIsStale, SqlloadError, startHeartbeat } from "@sqlload/core";
import { qualifiedTable, quoteIdentifier } from "./databricks-dialect.js";
import type { DatabricksSession } from "./databricks-session.js";
import { createTableSql } from "./databricks-statements.js";
import { timestampText } from "./databricks-types.js";

export interface LockTiming {
  /** How often a holder renews its lock. */
  readonly heartbeatMs: number;
  /** A lock not renewed for this long is taken over. */
  readonly staleMs: number;
}

export const DEFAULT_LOCK_TIMING: LockTiming = { heartbeatMs: 15_000, staleMs: 90_000 };

const LOCK_TABLE = "_sqlload_locks";

const LOCK_COLUMNS: readonly Column[] = [
  { name: "table_name", type: { kind: "text" }, nullable: false },
  { name: "token", type: { kind: "text" }, nullable: false },
  { name: "host", type: { kind: "text" }, nullable: false },
  { name: "pid", type: { kind: "int32" }, nullable: false },
  { name: "beat_at", type: { kind: "timestamptz" }, nullable: false },
];

interface Holder {
  readonly token: string;
  readonly host: string;
  readonly pid: number;
  readonly beatMicros: bigint;
}

const q = quoteIdentifier;
const nowText = () => `${timestampText(BigInt(Date.now()) * 1000n)}Z`;

/**
 * A table's run lock: a row of `_sqlload_locks` in its schema, inserted only where none exists
 * (Delta refuses the second of two racing inserts that read the same table, so one run wins),
 * renewed by its holder while the run lasts, and deleted at release. A lock whose holder is
 * gone (a process of this host that no longer exists, or silent for `staleMs`) is taken over
 * with an UPDATE that names the old holder's token, so of two runs taking it over one wins.
 */
export async function acquireTableLock(
  session: DatabricksSession,
  catalog: string,
  schema: string,
  table: string,
  timing: LockTiming = DEFAULT_LOCK_TIMING,
): Promise<{ release(): Promise<void> }> {
  const locks = qualifiedTable(catalog, { schema, name: LOCK_TABLE });
  await session.execute(createTableSql(locks, LOCK_COLUMNS, false));
  const token = randomUUID();
  const me = { t: table, token, host: hostname(), pid: String(process.pid), beat: nowText() };
  await session.execute(
    `INSERT INTO ${locks} (${LOCK_COLUMNS.map((c) => q(c.name)).join(", ")}) SELECT :t, :token, :host, CAST(:pid AS INT), CAST(:beat AS TIMESTAMP) WHERE NOT EXISTS (SELECT 1 FROM ${locks} WHERE ${q("table_name")} = :t)`,
    me,
  );
  let holder = await readHolder(session, locks, table);
  if (holder && holder.token !== token && isGone(holder, timing)) {
    await session.execute(
      `UPDATE ${locks} SET ${q("token")} = :token, ${q("host")} = :host, ${q("pid")} = CAST(:pid AS INT), ${q("beat_at")} = CAST(:beat AS TIMESTAMP) WHERE ${q("table_name")} = :t AND ${q("token")} = :old`,
      { ...me, old: holder.token },
    );
    holder = await readHolder(session, locks, table);
  }
  if (!holder || holder.token !== token) {
    const who = holder ? `process ${holder.pid} on ${holder.host}` : "another run";
    throw new SqlloadError("SL306", `table ${schema}.${table} is being loaded by ${who}`, { table: `${schema}.${table}` });
  }
  const heartbeat = startHeartbeat(
    () =>
      session.execute(
        `UPDATE ${locks} SET ${q("beat_at")} = CAST(:beat AS TIMESTAMP) WHERE ${q("table_name")} = :t AND ${q("token")} = :token`,
        { t: table, token, beat: nowText() },
      ),
    timing.heartbeatMs,
  );
  return {
    async release() {
      await heartbeat.stop();
      await session.execute(`DELETE FROM ${locks} WHERE ${q("table_name")} = :t AND ${q("token")} = :token`, { t: table, token });
    },
  };
}

async function readHolder(session: DatabricksSession, locks: string, table: string): Promise<Holder | undefined> {
  const rows = await session.query(
    `SELECT ${q("token")} AS token, ${q("host")} AS host, CAST(${q("pid")} AS STRING) AS pid, CAST(unix_micros(${q("beat_at")}) AS STRING) AS beat FROM ${locks} WHERE ${q("table_name")} = :t`,
    { t: table },
  );
  const row = rows[0];
  if (!row) return undefined;
  return { token: row.token ?? "", host: row.host ?? "", pid: Number(row.pid), beatMicros: BigInt(row.beat ?? "0") };
}

function isGone(holder: Holder, timing: LockTiming): boolean {
  // The beat is the warehouse's clock in microseconds; the rest is the rule every lease follows.
  return leaseIsStale({ ...holder, beat: Number(holder.beatMicros / 1000n) }, timing);
}
