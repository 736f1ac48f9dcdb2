import type { TargetTableRef } from "./table-ref.js";

/**
 * For a target: what it read about the tables this connection holds the lock of (their columns,
 * their metadata), read once and shared by the requests of one load (its maximum, `ensureTable`,
 * each unit's start), each a round trip to a warehouse that may cost a tenth of a second or more.
 * Under the lock no other sqlload run changes the table, and the target forgets what its own DDL
 * changes. A table not locked (`plan`) is read every time; `describeTable`, a load's first look,
 * should forget the table before it reads.
 */
export class HeldTables<T> {
  /**
   * Per held table: what was read (null: it does not exist), undefined until read. A new entry
   * object at every hold and forget, so a read that was under way then is not kept.
   */
  private readonly held = new Map<string, { known?: { readonly value: T | null } }>();

  hold(ref: TargetTableRef): void {
    this.held.set(keyOf(ref), {});
  }

  release(ref: TargetTableRef): void {
    this.held.delete(keyOf(ref));
  }

  /** What is known of the table: as last read while held, else read now by `read` (and kept while held). */
  async get(ref: TargetTableRef, read: () => Promise<T | null>): Promise<T | null> {
    const key = keyOf(ref);
    const entry = this.held.get(key);
    if (entry?.known) return entry.known.value;
    const value = await read();
    if (entry && this.held.get(key) === entry) entry.known = { value };
    return value;
  }

  /** Read again at the next `get`: after the target's own DDL, or at a load's first look. */
  forget(ref: TargetTableRef): void {
    const key = keyOf(ref);
    if (this.held.has(key)) this.held.set(key, {});
  }
}

function keyOf(ref: TargetTableRef): string {
  return `${ref.schema}\u0000${ref.name}`;
}
