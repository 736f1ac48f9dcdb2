import { Turns } from "@sqlload/core";

/**
 * A target file's `memory_limit` when the target leaves it unset (duckdb-memory-settings.ts says
 * why each part): a reserve plus what each appending unit keeps pinned, never under the base the
 * file was opened with, and the full limit while any unit needs it. DuckDB has one limit per
 * database, so units that load tables concurrently share it, and each adds its own need for as long
 * as it holds it. A table of a few columns loading alone fits in the base: no `SET` at all.
 */
export interface MemoryLimit {
  /**
   * Adds `need` megabytes to the limit, or gives it the full limit, until the returned release is
   * called (once). Resolves once the limit is in force.
   */
  hold(need: number | "full"): Promise<() => Promise<void>>;
}

/** A limit that never changes: the target set `memory_limit`, or the file is read, not written. */
export const FIXED_LIMIT: MemoryLimit = { hold: async () => async () => undefined };

/**
 * `set` runs `SET memory_limit = …` on a connection of its own; the database was opened with
 * `limits.base` (megabytes). Changes go one at a time, each to what the holds then add up to.
 */
export function switchedLimit(
  limits: { readonly full: number; readonly base: number; readonly reserve: number },
  set: (limit: string) => Promise<void>,
): MemoryLimit {
  const { full: fullMB, base: baseMB, reserve: reserveMB } = limits;
  const turns = new Turns();
  const holds = new Set<{ readonly need: number | "full" }>();
  let current = baseMB;
  const wanted = () => {
    let sum = reserveMB;
    for (const { need } of holds) {
      if (need === "full") return fullMB;
      sum += need;
    }
    return Math.min(fullMB, Math.max(baseMB, Math.ceil(sum)));
  };
  const settle = () =>
    turns.run(async () => {
      const target = wanted();
      if (target === current) return;
      try {
        await set(`${target}MB`);
        current = target;
      } catch (error) {
        // Lowering fails when DuckDB cannot evict enough at once (what is pinned stays pinned): the
        // limit stays higher, which costs memory, never rows, and the next release tries again.
        if (target > current) throw error;
      }
    });
  return {
    async hold(need) {
      const entry = { need };
      holds.add(entry);
      try {
        await settle();
      } catch (error) {
        holds.delete(entry);
        throw error;
      }
      return async () => {
        if (!holds.delete(entry)) return;
        // A failure to raise here is another holder's, which its own settle reports.
        await settle().catch(() => undefined);
      };
    },
  };
}

/**
 * Megabytes an appending unit adds per column of its table: DuckDB keeps the block each column is
 * being appended to pinned, with its validity's, and compresses a full row group a column at a time
 * into blocks of its own (256 KB each). At a 32 MB base without it, a table of 121 `bigint` columns
 * failed to append ("could not allocate block"); with it, it loads.
 */
export const APPEND_MB_PER_COLUMN = 1;
