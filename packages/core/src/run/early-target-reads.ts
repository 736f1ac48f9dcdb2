import type { TargetConnection, TargetTableInfo } from "../connector/target.js";
import type { RunLogRow } from "../state/run-log.js";
import type { ProjectTable } from "./project-session.js";
import { readNewestRecords } from "./read-logged-position.js";

/**
 * What planning a table's load first reads of its target, its description and the newest records
 * of its run log (prepare-table.ts, read-logged-position.ts), read while the checks still ask the
 * sources. `undefined` when they were not read early: the load reads them itself.
 */
export interface EarlyTargetReads {
  readonly info: Promise<TargetTableInfo | null>;
  readonly newest: Promise<readonly RunLogRow[]>;
}

/**
 * Begins, on a target opened during the checks (ProjectSession.openTargetEarly), the reads each
 * of `tables` will plan from, so that the target's round trips overlap the sources' instead of
 * following them. Only where reading now is the same as reading after the checks:
 * - on a target that takes no table locks (`capabilities.locking` false): where a load locks
 *   its table, what it plans from must be read under the lock;
 * - until the run first commits, as with the checks' descriptions (recentDescription): the caller
 *   stops using them then, since a commit may change what a later table reads.
 * A table its checks refuse, or whose load needs none of it, leaves its reads unused; the caller
 * waits for them before the target may close (earlyReadsSettled). Failures are those the load's
 * own reads would meet, and surface where it awaits them.
 */
export function readTargetsEarly(
  early: Promise<TargetConnection> | undefined,
  tables: readonly ProjectTable[],
): Promise<ReadonlyMap<ProjectTable, EarlyTargetReads>> {
  if (!early || tables.length === 0) return Promise.resolve(new Map());
  const reads = early.then((target) => {
    const out = new Map<ProjectTable, EarlyTargetReads>();
    if (target.capabilities.locking) return out;
    for (const table of tables) {
      const ref = table.config.target;
      const info = target.describeTable(ref);
      const newest = readNewestRecords(target, ref);
      // Awaited only by a load that plans from them.
      info.catch(() => {});
      newest.catch(() => {});
      out.set(table, { info, newest });
    }
    return out;
  });
  // A target that failed to open early is opened (and its failure reported) by targetConnection.
  return reads.catch(() => new Map());
}

/**
 * Settles once every read `readTargetsEarly` began has: the target must not close under a read
 * still running (a run whose checks failed, a table that failed before it planned).
 */
export async function earlyReadsSettled(reads: Promise<ReadonlyMap<ProjectTable, EarlyTargetReads>>): Promise<void> {
  const started = await reads;
  await Promise.allSettled([...started.values()].flatMap((read) => [read.info, read.newest]));
}
