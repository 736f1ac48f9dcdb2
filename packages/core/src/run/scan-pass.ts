import type { SourceTableReader } from "../connector/source.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import { CHUNK_BYTES } from "../plan/commit-mode.js";
import type { CommitSchedule, ReadPass } from "./commit-schedule.js";
import type { Committer } from "./committer.js";
import { crashPoint } from "./crash-points.js";
import { interruptedError } from "./read-items.js";

/**
 * One pass on the native path: the source's scans of the pass's files, each read by the target
 * into the unit in flight (begun here, replacing the pass's range, as on the row path). Scans of an
 * ordered read end where the row path has commit points, so a commit may follow one: it must at
 * the read's 1,000-file rule (a required point), and does once about 1 GB of files was read since
 * the last commit (the row path's byte rule, counting the files' size since no rows pass here).
 */
export async function scanPass(args: {
  readonly reader: SourceTableReader;
  readonly pass: ReadPass;
  readonly schedule: CommitSchedule;
  readonly committer: Committer;
  readonly signal: AbortSignal;
  readonly table: string;
  /** Tests lower it. */
  readonly chunkBytes?: number | undefined;
}): Promise<void> {
  const { reader, pass, schedule, committer, signal, table } = args;
  const chunkBytes = args.chunkBytes ?? CHUNK_BYTES;
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
  let bytes = 0;
  for (const [i, scan] of scans.entries()) {
    if (signal.aborted) throw interruptedError(table);
    crashPoint("read");
    await committer.ingestFiles(scan);
    crashPoint("write");
    bytes += scan.bytes;
    const due = scan.commitAfter || bytes >= chunkBytes;
    if (due && schedule.commitsAtCommitPoints && i + 1 < scans.length) {
      await committer.commit();
      await committer.begin(undefined);
      bytes = 0;
    }
  }
}
