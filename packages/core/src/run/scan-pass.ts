import type { SourceTableReader } from "../connector/source.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import type { CommitSchedule, ReadPass } from "./commit-schedule.js";
import type { Committer } from "./committer.js";
import { crashPoint } from "./crash-points.js";
import { interruptedError } from "./read-items.js";

/**
 * One pass on the native path: the source's scans of the pass's files, each read by the target
 * into the unit in flight (begun here, replacing the pass's range, as on the row path). A scan
 * ending at the read's 1,000-file rule is followed by a commit, where the row path meets a
 * required commit point; the row path's byte rule has no rows to count here, as the target
 * ingests each scan in one statement.
 */
export async function scanPass(args: {
  readonly reader: SourceTableReader;
  readonly pass: ReadPass;
  readonly schedule: CommitSchedule;
  readonly committer: Committer;
  readonly signal: AbortSignal;
  readonly table: string;
}): Promise<void> {
  const { reader, pass, schedule, committer, signal, table } = args;
  if (!reader.fileScans) {
    throw new SqlloadError("SL406", `the source of ${table} offers its files but its reader has no fileScans()`, { table });
  }
  const scans = await reader.fileScans({
    range: pass.range,
    includeNulls: pass.includeNulls,
    ordered: schedule.commitsAtCommitPoints,
  });
  if (!committer.open)
    await committer.begin(undefined, { range: pass.deleteRange ?? pass.range, includeNulls: pass.includeNulls });
  for (const [i, scan] of scans.entries()) {
    if (signal.aborted) throw interruptedError(table);
    crashPoint("read");
    await committer.ingestFiles(scan);
    crashPoint("write");
    if (scan.commitAfter && schedule.commitsAtCommitPoints && i + 1 < scans.length) {
      await committer.commit();
      await committer.begin(undefined);
    }
  }
}
