import { Turns } from "@sqlload/core";

/**
 * A target file's `memory_limit` when the target leaves it unset: the appending limit while every
 * open unit only appends, the full one while any unit queries what it writes (duckdb-memory-settings.ts
 * says why each). DuckDB has one limit per database, so units that load tables concurrently share
 * it: the first unit to need the full limit raises it, and the last to be done lowers it.
 */
export interface MemoryLimit {
  /** Gives the database the full limit until the returned release is called (once). */
  hold(): Promise<() => Promise<void>>;
}

/** A limit that never changes: the target set `memory_limit`, or the file is read, not written. */
export const FIXED_LIMIT: MemoryLimit = { hold: async () => async () => undefined };

/**
 * `set` runs `SET memory_limit = …` on a connection of its own; the database was opened with
 * `appending`. Changes go one at a time, and only when the count of holders crosses zero.
 */
export function switchedLimit(full: string, appending: string, set: (limit: string) => Promise<void>): MemoryLimit {
  const turns = new Turns();
  let holders = 0;
  let current = appending;
  const settle = () =>
    turns.run(async () => {
      const wanted = holders > 0 ? full : appending;
      if (current === wanted) return;
      try {
        await set(wanted);
        current = wanted;
      } catch (error) {
        // Lowering fails when DuckDB cannot evict enough at once (what is pinned stays pinned): the
        // limit stays higher, which costs memory, never rows, and the next release tries again.
        if (wanted === full) throw error;
      }
    });
  return {
    async hold() {
      holders++;
      try {
        await settle();
      } catch (error) {
        holders--;
        throw error;
      }
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        holders--;
        // A failure to raise here is a later holder's, which its own settle reports.
        await settle().catch(() => undefined);
      };
    },
  };
}
