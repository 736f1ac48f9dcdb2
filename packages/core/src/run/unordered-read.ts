import type { SourceTableInfo } from "../connector/source.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import type { CommitSchedule } from "./commit-schedule.js";

/**
 * Whether a pass is first read without cursor order. Cursor order is what lets a table commit
 * along the way (SPEC §6: between distinct cursor values, about every `chunkBytes`), and it costs
 * the source: a Postgres index walk takes its backend about a third more CPU than a scan of the
 * same rows. A table its source reckons at no more than half a commit will likely commit once
 * however it is read, so it is read in any order while the bytes read stay under a commit's
 * (`UnorderedBudget`); past them the unit is rolled back and the pass read again in order. The
 * half leaves room for what an estimate from the source's statistics does not see.
 *
 * Only the first pass of a table with nothing committed yet, and not a logged table (whose
 * checkpoints commit where they fall).
 */
export function readsUnorderedFirst(
  schedule: Pick<CommitSchedule, "commitsAtCommitPoints">,
  info: Pick<SourceTableInfo, "fullReadBytes">,
  chunkBytes: number,
  logged: boolean,
): boolean {
  const bytes = info.fullReadBytes;
  if (!schedule.commitsAtCommitPoints || logged || typeof bytes !== "number") return false;
  return Number.isFinite(bytes) && bytes >= 0 && bytes * 2 <= chunkBytes;
}

/** Counts an unordered read's bytes against a commit's worth. */
export class UnorderedBudget {
  private bytes = 0;

  constructor(
    private readonly chunkBytes: number,
    private readonly table: string,
  ) {}

  get spent(): number {
    return this.bytes;
  }

  /** Adds a batch's bytes; false once the read has reached a commit's worth, where an ordered read could commit. */
  take(bytes: number | undefined): boolean {
    if (bytes === undefined || !Number.isFinite(bytes) || bytes < 0) {
      throw new SqlloadError(
        "SL406",
        `the source of ${this.table} gives fullReadBytes but yielded a batch without its bytes: it must give both`,
        { table: this.table },
      );
    }
    this.bytes += bytes;
    return this.bytes < this.chunkBytes;
  }
}
