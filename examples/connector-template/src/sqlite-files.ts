import { randomBytes } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { processAlive, SqlloadError } from "@sqlload/core";
import sqlite from "node-sqlite3-wasm";

export type SqliteDatabase = InstanceType<typeof sqlite.Database>;

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

/** The file's connection while a writer holds it, and how the writer ends. */
export interface Writer {
  readonly db: SqliteDatabase;
  /** Makes the writer's work the file's content, in one rename. */
  publish(): void;
  /** Lets the next writer in; without `publish`, the work is dropped. */
  release(): void;
}

/**
 * One schema file. The driver is SQLite compiled to WebAssembly (nothing to build on install);
 * it has no WAL, and its file lock is one lock for the whole file, so readers cannot read while
 * a writer's transaction is open. A writer therefore works on a copy of the file and `publish`
 * renames the copy over it: readers see the last published file, never a writer's work early,
 * and a process killed mid-unit leaves the file as it was. Writers take turns: in this process
 * through a queue, across processes through `<file>.writer`, which names the holder's pid.
 */
export class SchemaFile {
  private queue: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {}

  /** Runs `work` on the last published file; undefined while there is none. */
  async read<T>(work: (db: SqliteDatabase) => T): Promise<T | undefined> {
    if (!existsSync(this.path)) return undefined;
    const db = new sqlite.Database(this.path, { readOnly: true, fileMustExist: true });
    try {
      db.exec("PRAGMA busy_timeout = 5000");
      return work(db);
    } finally {
      db.close();
    }
  }

  /** Waits for the writer's turn and opens a copy of the file (empty when there is none yet). */
  async acquire(): Promise<Writer> {
    let next!: () => void;
    const previous = this.queue;
    this.queue = new Promise<void>((resolve) => {
      next = resolve;
    });
    await previous;
    let unlock: (() => void) | undefined;
    try {
      mkdirSync(join(this.path, ".."), { recursive: true });
      unlock = await lockFile(`${this.path}.writer`);
      // Only the lock's holder makes copies: any left here are from a process killed mid-unit.
      for (const name of readdirSync(dirname(this.path))) {
        if (name.startsWith(`${basename(this.path)}.`) && name.endsWith(".unit"))
          rmSync(join(dirname(this.path), name), { force: true });
      }
      const copy = `${this.path}.${randomBytes(6).toString("hex")}.unit`;
      if (existsSync(this.path)) copyFileSync(this.path, copy);
      const db = new sqlite.Database(copy);
      // The copy is private until published: its journal can live in memory.
      db.exec("PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF");
      let open = true;
      const close = () => {
        if (open) db.close();
        open = false;
      };
      const release = () => {
        close();
        rmSync(copy, { force: true });
        unlock?.();
        next();
      };
      const publish = () => {
        close();
        const fd = openSync(copy, "r+");
        fsyncSync(fd);
        closeSync(fd);
        renameSync(copy, this.path);
      };
      return { db, publish, release };
    } catch (error) {
      unlock?.();
      next();
      throw error;
    }
  }
}

/** Takes `path` as a lock file holding this process's pid; a holder whose process is gone is replaced. */
async function lockFile(path: string): Promise<() => void> {
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const text = readText(path);
    const pid = Number(text);
    // Empty: its holder has created it and not yet written its pid.
    if (text !== "" && (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid))) {
      rmSync(path, { force: true });
      continue;
    }
    if (attempt >= 50) {
      throw new SqlloadError("SL306", `${path} is held by process ${pid}, which is writing the file`, {
        hint: "Wait for the other run to finish, then run again.",
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}
