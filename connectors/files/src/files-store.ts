import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";

/** One stored file: its path relative to the store's root (always with `/`), size and time. */
export interface StoredFile {
  readonly path: string;
  readonly size: number;
  readonly modified: Date;
}

/**
 * Where the files connector keeps and finds files. Paths are relative to the store's root and
 * use `/`. Small on purpose, so an object store can implement it later: `rename` must replace
 * its target atomically (an object store would use a conditional put of the manifest instead),
 * and `write` with `exclusive` must fail with code `EEXIST` when the file exists.
 */
export interface FileStore {
  /** Where the root is, for messages. */
  readonly description: string;
  /** Every file under `prefix` (a folder, "" for the root), recursively; none when it does not exist. */
  list(prefix: string): Promise<StoredFile[]>;
  /** One file's entry, or null when it does not exist. */
  stat(path: string): Promise<StoredFile | null>;
  /** Makes a file written by DuckDB durable before a manifest names it. */
  sync(path: string): Promise<void>;
  /** A file's bytes, or null when it does not exist. */
  read(path: string): Promise<Uint8Array | null>;
  /** Writes a file whole, creating folders; `exclusive` fails when it exists (code `EEXIST`). */
  write(
    path: string,
    data: Uint8Array | string,
    options?: { readonly exclusive?: boolean; readonly durable?: boolean },
  ): Promise<void>;
  /** Moves `from` over `to`, replacing it atomically: a reader sees the old file or the new one. */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file; a missing file is not an error. */
  delete(path: string): Promise<void>;
  /** Removes folders under `prefix` that hold no files (left by deleted partitions). */
  prune(prefix: string): Promise<void>;
  /**
   * The path or URL DuckDB opens for a file of the store. With `forWrite`, the folder it goes in
   * exists afterwards, so DuckDB's COPY can write it.
   */
  enginePath(path: string, options?: { readonly forWrite?: boolean }): Promise<string>;
}

/** A folder on the local file system. */
export class LocalFileStore implements FileStore {
  constructor(readonly root: string) {}

  get description(): string {
    return this.root;
  }

  private abs(path: string): string {
    return path === "" ? this.root : join(this.root, ...path.split("/"));
  }

  async list(prefix: string): Promise<StoredFile[]> {
    const out: StoredFile[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries: import("node:fs").Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (isMissing(error)) return;
        throw error;
      }
      const stats = entries.map(async (entry) => {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) return walk(full);
        if (!entry.isFile()) return;
        try {
          const info = await stat(full);
          out.push({ path: relative(this.root, full).split(sep).join("/"), size: info.size, modified: info.mtime });
        } catch (error) {
          // Removed between listing and stat: it is not there.
          if (!isMissing(error)) throw error;
        }
      });
      await Promise.all(stats);
    };
    await walk(this.abs(prefix));
    return out;
  }

  async stat(path: string): Promise<StoredFile | null> {
    try {
      const info = await stat(this.abs(path));
      return info.isFile() ? { path, size: info.size, modified: info.mtime } : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async sync(path: string): Promise<void> {
    const handle = await open(this.abs(path), "r+");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async read(path: string): Promise<Uint8Array | null> {
    try {
      return await readFile(this.abs(path));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async write(path: string, data: Uint8Array | string, options: { exclusive?: boolean; durable?: boolean } = {}): Promise<void> {
    const file = this.abs(path);
    await mkdir(dirname(file), { recursive: true });
    if (!options.durable) {
      await writeFile(file, data, { flag: options.exclusive ? "wx" : "w" });
      return;
    }
    const handle = await open(file, options.exclusive ? "wx" : "w");
    try {
      await handle.writeFile(data);
      // The manifest is renamed over the old one right after: its bytes must be on disk first.
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async rename(from: string, to: string): Promise<void> {
    const target = this.abs(to);
    await mkdir(dirname(target), { recursive: true });
    await rename(this.abs(from), target);
    await syncDir(dirname(target));
  }

  async delete(path: string): Promise<void> {
    await rm(this.abs(path), { force: true });
  }

  async prune(prefix: string): Promise<void> {
    const walk = async (dir: string, isRoot: boolean): Promise<boolean> => {
      let entries: import("node:fs").Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (isMissing(error)) return true;
        throw error;
      }
      let empty = true;
      for (const entry of entries) {
        if (entry.isDirectory() && (await walk(join(dir, entry.name), false))) continue;
        empty = false;
      }
      if (empty && !isRoot) {
        await rmdir(dir).catch(() => undefined);
        return true;
      }
      return empty;
    };
    await walk(this.abs(prefix), true);
  }

  async enginePath(path: string, options: { forWrite?: boolean } = {}): Promise<string> {
    const file = this.abs(path);
    if (options.forWrite) await mkdir(dirname(file), { recursive: true });
    return file;
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

/** Makes a rename in `dir` durable; some file systems refuse to open a folder, which is fine. */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {}
}
