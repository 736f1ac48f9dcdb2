import { totalmem } from "node:os";

/** DuckDB's own default limit: 80% of the memory this process may use. The most a limit is raised to. */
export function duckdbDefaultLimit(): number {
  const constrained = process.constrainedMemory?.() ?? 0;
  const memory = constrained > 0 ? Math.min(constrained, totalmem()) : totalmem();
  return Math.floor(memory * 0.8);
}

/**
 * One open database's memory_limit, raised (never lowered) to what its users ask for, up to
 * DuckDB's own default: lowering it under work in flight could fail that work.
 */
export class RaisableLimit {
  /** The SETs in order: each sets the limit as it is when it runs, so a later, higher one is never undone. */
  private setting: Promise<void> = Promise.resolve();

  constructor(
    private limit: number,
    private readonly setLimit: (bytes: number) => Promise<void>,
    readonly ceiling = duckdbDefaultLimit(),
  ) {}

  get bytes(): number {
    return this.limit;
  }

  /** Raises the limit to `need` (at most the ceiling) unless it is that high already. */
  async raise(need: number): Promise<void> {
    const bytes = Math.min(need, this.ceiling);
    if (bytes <= this.limit) return;
    // Set before the await: a user that asks meanwhile compares against the new limit.
    const before = this.limit;
    this.limit = bytes;
    const set = this.setting.then(() => this.setLimit(this.limit));
    this.setting = set.catch(() => undefined);
    try {
      await set;
    } catch (error) {
      // Not raised: a later request tries again.
      if (this.limit === bytes) this.limit = before;
      throw error;
    }
  }
}
