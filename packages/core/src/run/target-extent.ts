import type { CursorRange } from "../connector/source.js";
import { type CursorValue, compareCursor, maxCursor } from "../cursor/cursor-value.js";

/**
 * The highest cursor value a target table may hold during one table's run: its maximum when the
 * run planned, raised by every row this run writes (rows rolled back keep it raised: it only has
 * to be an upper bound). It holds while this load is the table's only writer, as `delete_insert`
 * assumes anyway: a target that locks holds the table's lock for the run; two source tables loaded
 * into one target table at once, or writers outside sqlload, would see their rows replaced or not
 * depending on timing either way.
 *
 * `delete_insert` deletes each range it reads before inserting it. A range that starts above this
 * bound holds no rows, so its delete can only cost: on a target without an index on the cursor
 * (Postgres as sqlload creates tables, BigQuery, Snowflake) every window of a backfill scanned the
 * whole table to delete nothing, the load growing with the square of its windows.
 */
export class TargetExtent {
  private high: CursorValue | null;

  /** `max`: the target's maximum of the cursor when the run planned; null for an empty or new table. */
  constructor(max: CursorValue | null) {
    this.high = max;
  }

  /** Rows up to `max` were written (null: none had a cursor). */
  wrote(max: CursorValue | null): void {
    this.high = maxCursor(this.high, max);
  }

  /**
   * Whether the table may hold rows whose cursor lies in `range`: always with NULLs included or
   * no lower bound, never when the range starts above every value it can hold.
   */
  mayHoldRowsIn(range: CursorRange, includeNulls: boolean): boolean {
    if (includeNulls || !range.from) return true;
    const high = this.high;
    if (!high) return false;
    if (high.kind !== range.from.kind) return true;
    const c = compareCursor(high, range.from);
    return range.fromInclusive === false ? c > 0 : c >= 0;
  }
}
