import type { TableMetadata } from "./bigquery-catalog.js";

/**
 * The metadata of the tables this connection holds the lock of, read once and shared by the
 * requests of one load (its maximum, `ensureTable`, each unit's start), each a round trip that
 * costs a tenth of a second or more. Under the lock no other sqlload run changes the table, and
 * this connection forgets what its own DDL changes. A table not locked (`plan`) is always read
 * from BigQuery, and so is every table's first read of a load (`describeTable` refreshes it).
 */
export class HeldTables {
  /** Per held table: its metadata once read (null: it does not exist), undefined until then. */
  private readonly held = new Map<string, { readonly table: TableMetadata | null } | undefined>();

  hold(key: string): void {
    this.held.set(key, undefined);
  }

  release(key: string): void {
    this.held.delete(key);
  }

  /** The table's metadata: as last read while held, else read now by `read` (and kept while held). */
  async get(key: string, read: () => Promise<TableMetadata | null>): Promise<TableMetadata | null> {
    const known = this.held.get(key);
    if (known) return known.table;
    const table = await read();
    if (this.held.has(key)) this.held.set(key, { table });
    return table;
  }

  /** Read again at the next `get`: after DDL of this connection, or at a load's first read. */
  forget(key: string): void {
    if (this.held.has(key)) this.held.set(key, undefined);
  }
}
