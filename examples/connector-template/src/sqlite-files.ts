import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";

/**
 * SQLite has no schemas, so each schema of the target is a database file in the target's
 * folder: `raw.app__orders` is table `app__orders` in `<folder>/raw.sqlite`. Characters other
 * than letters, digits, `_` and `-` are written `%XX`, so any schema name is a safe file name.
 */
export function schemaFile(folder: string, schema: string): string {
  const safe = Array.from(new TextEncoder().encode(schema), (byte) => {
    const ch = String.fromCharCode(byte);
    return /[A-Za-z0-9_-]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }).join("");
  return join(folder, `${safe}.sqlite`);
}

/**
 * The connections of one schema file. SQLite lets one connection write at a time, and
 * better-sqlite3 waits for a lock synchronously (blocking the event loop), so this process
 * never lets two of its own units contend: `withWriter` queues them, and each holds the writer
 * from `begin` to `commit`/`abort`. Readers use their own connection and, in WAL mode, see the
 * last commit while a unit writes.
 */
export class SchemaFile {
  private reader: Database.Database | undefined;
  private writer: Database.Database | undefined;
  private queue: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {}

  exists(): boolean {
    return existsSync(this.path);
  }

  /** A connection for reads; undefined while the file does not exist (nothing was ever written). */
  read(): Database.Database | undefined {
    if (!this.reader && this.exists()) this.reader = open(this.path, { readonly: true });
    return this.reader;
  }

  /**
   * Waits until no other unit of this process writes the file, then hands over the writer. The
   * returned `release` lets the next one in.
   */
  async acquire(): Promise<{ db: Database.Database; release: () => void }> {
    let release!: () => void;
    const previous = this.queue;
    this.queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    if (!this.writer) {
      mkdirSync(join(this.path, ".."), { recursive: true });
      this.writer = open(this.path, { readonly: false });
      // Set once per file and kept: readers then never block the writer nor see its work early.
      this.writer.pragma("journal_mode = WAL");
    }
    return { db: this.writer, release };
  }

  close(): void {
    this.reader?.close();
    this.writer?.close();
    this.reader = this.writer = undefined;
  }
}

function open(path: string, options: { readonly: boolean }): Database.Database {
  const db = new Database(path, { readonly: options.readonly, fileMustExist: options.readonly });
  // Every integer as a bigint: int64 values and microsecond timestamps are exact past 2^53.
  db.defaultSafeIntegers(true);
  // Another process's writer: wait a little rather than fail at once.
  db.pragma("busy_timeout = 5000");
  return db;
}
