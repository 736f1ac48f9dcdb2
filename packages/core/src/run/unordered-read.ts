import { SqlloadError } from "../errors/sqlload-error.js";

/**
 * Counts an unordered read's bytes against a commit's worth. Cursor order is what lets a table
 * commit along the way (SPEC §6: between distinct cursor values, about every `chunkBytes`), and it
 * costs the source: a Postgres index walk takes its backend about a third more CPU than a scan of
 * the same rows. So a table that likely commits once (`readsUnorderedFirst`) is read in any order
 * while its bytes stay under a commit's; past them the unit is rolled back and the pass read again
 * in order.
 */
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
