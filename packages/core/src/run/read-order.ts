import type { SourceTableInfo } from "../connector/source.js";
import type { CommitSchedule } from "./commit-schedule.js";

/**
 * Whether a pass asks the source for its rows in cursor order. Only a table that commits along the
 * way needs them so (SPEC §6: between distinct cursor values, about every `chunkBytes`). A table the
 * source reckons at no more than half of that commits once however it is read, and an ordered read
 * would cost the source for nothing: a Postgres index walk takes its backend a quarter more CPU than
 * a scan of the same rows. The half is a margin for what the estimate cannot see, such as values the
 * source stores compressed and sends whole.
 */
export function readsInCursorOrder(
  schedule: Pick<CommitSchedule, "commitsAtCommitPoints">,
  info: Pick<SourceTableInfo, "fullReadBytes">,
  chunkBytes: number,
): boolean {
  if (!schedule.commitsAtCommitPoints) return false;
  const bytes = info.fullReadBytes;
  const known = typeof bytes === "number" && Number.isFinite(bytes) && bytes >= 0;
  return !known || bytes * 2 > chunkBytes;
}
