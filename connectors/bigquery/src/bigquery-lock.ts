import { randomUUID } from "node:crypto";
import { SqlloadError, startHeartbeat } from "@sqlload/core";
import { qualifiedTable } from "./bigquery-dialect.js";
import type { BigQueryJobs, QueryParameter } from "./bigquery-jobs.js";
import type { FieldSchema } from "./bigquery-types.js";

export const LOCK_TABLE = "_sqlload_locks";

export const LOCK_FIELDS: readonly FieldSchema[] = [
  { name: "target_name", type: "STRING", mode: "REQUIRED" },
  { name: "holder", type: "STRING", mode: "REQUIRED" },
  { name: "expires_at", type: "TIMESTAMP", mode: "REQUIRED" },
];

/** How long a lock lives unless renewed, and how often it is renewed while held. */
export interface LockTiming {
  readonly ttlSeconds: number;
  readonly renewMs: number;
}

export const DEFAULT_LOCK_TIMING: LockTiming = { ttlSeconds: 900, renewMs: 300_000 };

/**
 * Takes the lock row of a table in a transaction of its own: an expired row is deleted and ours
 * inserted only when none is left. Two runs racing write the same table in two transactions, and
 * BigQuery aborts one (retried, it then finds the winner's row). A crashed run's row expires by
 * time; a live run renews its row while it holds it.
 */
export async function acquireLock(
  jobs: BigQueryJobs,
  dataset: string,
  targetName: string,
  timing: LockTiming,
): Promise<{ release(): Promise<void> }> {
  const table = qualifiedTable(dataset, LOCK_TABLE);
  const holder = randomUUID();
  const params: Record<string, QueryParameter> = {
    target_name: { type: "STRING", value: targetName },
    holder: { type: "STRING", value: holder },
    ttl: { type: "INT64", value: String(timing.ttlSeconds) },
  };
  // One job: jobs.getQueryResults on a script returns the results of its last SELECT, DML or DDL
  // statement (docs/multi-statement-queries, "return the last executed statement"), here who
  // holds the lock once the transaction that may have taken it committed.
  const owner = await jobs.query(
    [
      "BEGIN TRANSACTION",
      `DELETE FROM ${table} WHERE target_name = @target_name AND expires_at < CURRENT_TIMESTAMP()`,
      `INSERT INTO ${table} (target_name, holder, expires_at) SELECT @target_name, @holder, TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL @ttl SECOND) FROM UNNEST([1]) WHERE NOT EXISTS (SELECT 1 FROM ${table} WHERE target_name = @target_name)`,
      "COMMIT TRANSACTION",
      `SELECT holder FROM ${table} WHERE target_name = @target_name`,
    ].join(";\n"),
    params,
  );
  if (!owner.rows.some((r) => r.holder === holder)) {
    throw new SqlloadError("SL306", `table ${targetName} is locked by another sqlload run`, {
      table: targetName,
      retryable: true,
      hint: `Wait for the other run to finish. A crashed run's lock expires ${timing.ttlSeconds}s after it last renewed it (rows of ${dataset}.${LOCK_TABLE}).`,
    });
  }
  const heartbeat = startHeartbeat(
    () =>
      jobs.query(
        `UPDATE ${table} SET expires_at = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL @ttl SECOND) WHERE target_name = @target_name AND holder = @holder`,
        params,
      ),
    timing.renewMs,
  );
  return {
    async release() {
      await heartbeat.stop();
      await jobs.query(`DELETE FROM ${table} WHERE target_name = @target_name AND holder = @holder`, params);
    },
  };
}
