import { mkdirSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { SqlloadError, Turns } from "@sqlload/core";
import { bindings, DuckDBInstance } from "./duckdb-client.js";
import { quoteIdent, quoteString } from "./duckdb-dialect.js";
import {
  attachedInstanceOptions,
  INSTANCE_OPTIONS,
  recoversLog,
  type TargetFileSettings,
  targetFileOptions,
} from "./duckdb-instance-options.js";
import { begunWith, discardInstance, type InstanceStart, startInstance } from "./duckdb-instance-start.js";
import { RaisableLimit } from "./duckdb-memory-limit.js";
import {
  DEFAULT_MEMORY_LIMIT,
  DEFAULT_MEMORY_LIMIT_BYTES,
  DEFAULT_ROW_GROUP_SIZE,
  READ_BASE_BYTES,
} from "./duckdb-memory-settings.js";
import { ReadMemory } from "./duckdb-read-memory.js";
import { notAVersion } from "./duckdb-storage-version.js";
import { IN_MEMORY } from "./duckdb-target-path.js";
import { leftoverSpills, removeLeftoverSpills } from "./duckdb-temporary-files.js";
import { WriteMemory } from "./duckdb-write-memory.js";
import { duckdbMessage, openError } from "./errors.js";

export type AccessMode = "read_write" | "read_only";

/** How a source's file is opened: the source's `memory_limit`, or none to let its reads raise one (duckdb-read-memory.ts). */
export interface SourceFileSettings {
  readonly memoryLimit?: string | undefined;
}

const TARGET_DEFAULTS: TargetFileSettings = {
  memoryLimit: DEFAULT_MEMORY_LIMIT,
  rowGroupSize: DEFAULT_ROW_GROUP_SIZE,
  raisable: true,
};

/** One open DuckDB database, shared by every connector object of this process that names its file. */
export interface DuckDBDatabase {
  /** The file, or `:memory:`, for messages. */
  readonly path: string;
  connect(): Promise<DuckDBConnection>;
  /** Closes a connection `connect` gave, before `release`. */
  disconnect(connection: DuckDBConnection): void;
  /**
   * Runs `work` after every earlier `serialize`d work on this database has finished. Catalog
   * changes go through it: two transactions that create the same schema or table at once fail
   * with a write-write conflict in DuckDB, even with IF NOT EXISTS.
   */
  serialize<T>(work: () => Promise<T>): Promise<T>;
  /** Disconnects what `connect` opened and closes the file when its last user releases it. */
  release(): Promise<void>;
  /** The target file's limit, raised for long values and wide rows; absent when it is fixed (set by the target, or a source's). */
  readonly writeMemory?: WriteMemory | undefined;
  /** A source file's limit, raised for the reads open; absent when the source sets it. */
  readonly readMemory?: ReadMemory | undefined;
}

interface Shared {
  readonly instance: DuckDBInstance;
  /** The catalog every connection starts in when the file is attached rather than opened (see `attach`). */
  readonly catalog?: string | undefined;
  readonly mode: AccessMode;
  users: number;
  readonly turns: Turns;
  writeMemory?: WriteMemory;
  readMemory?: ReadMemory;
}

// A file may be open only once per process: DuckDB's file lock is per process, so a second
// instance of the same file in one process would not be stopped by it and would corrupt it.
const open = new Map<string, Promise<Shared>>();

/**
 * Opens (or shares) the database at `path`, relative to `projectDir`; `:memory:` is a new private
 * database every time. A file opened for writing creates its folder; a read-only open of a missing
 * file fails as the `role` it is opened for. A target's file gets its `settings` (see
 * duckdb-memory-settings.ts and duckdb-storage-version.ts), a source's the `memoryLimit` its
 * settings give, or else the limit its reads raise; a file this process already has open keeps the
 * settings it was opened with. An in-memory database takes none: it has nowhere to drop
 * blocks to, and no storage format.
 */
export async function openDatabase(
  path: string,
  projectDir: string,
  mode: AccessMode,
  role: "source" | "target",
  fileSettings?: TargetFileSettings | SourceFileSettings,
  started?: InstanceStart,
): Promise<DuckDBDatabase> {
  const settings: TargetFileSettings =
    role === "target" ? ((fileSettings as TargetFileSettings | undefined) ?? TARGET_DEFAULTS) : TARGET_DEFAULTS;
  const limited = role === "target" && path !== IN_MEMORY;
  const options: Record<string, string> = limited ? targetFileOptions(settings) : { ...INSTANCE_OPTIONS };
  if (mode === "read_only") options.access_mode = "READ_ONLY";
  const readLimit = role === "source" ? (fileSettings as SourceFileSettings | undefined)?.memoryLimit : undefined;
  const reading = role === "source" && path !== IN_MEMORY;
  if (reading) options.memory_limit = readLimit ?? `${READ_BASE_BYTES / 1e6}MB`;
  const rowGroupSize = limited ? settings.rowGroupSize : undefined;
  if (path === IN_MEMORY) {
    if (started) discardInstance(bindings, started);
    const shared = await createShared(IN_MEMORY, mode, role, options);
    return handle(IN_MEMORY, shared, () => shared.instance.closeSync());
  }
  const file = resolve(projectDir, path);
  let pending = open.get(file);
  if (!pending) {
    const raisable = limited && settings.raisable && mode === "read_write";
    pending = createShared(file, mode, role, options, rowGroupSize, raisable, started);
    if (raisable) {
      pending = pending.then((shared) => {
        shared.writeMemory = new WriteMemory(DEFAULT_MEMORY_LIMIT_BYTES, (bytes) => setMemoryLimit(shared, bytes));
        return shared;
      });
    } else if (reading && readLimit === undefined) {
      pending = pending.then((shared) => {
        shared.readMemory = new ReadMemory(new RaisableLimit(READ_BASE_BYTES, (bytes) => setMemoryLimit(shared, bytes)));
        return shared;
      });
    }
    open.set(file, pending);
    pending.catch(() => open.delete(file));
  } else if (started) {
    discardInstance(bindings, started);
  }
  const shared = await pending;
  if (mode === "read_write" && shared.mode === "read_only") {
    throw new SqlloadError("SL305", `the DuckDB file ${file} is already open read-only in this process (by a DuckDB source)`, {
      hint: "Read from a copy of the file, or give the source and the target different files.",
    });
  }
  shared.users++;
  return handle(file, shared, () => {
    if (--shared.users === 0) {
      open.delete(file);
      shared.instance.closeSync();
    }
  });
}

async function createShared(
  file: string,
  mode: AccessMode,
  role: "source" | "target",
  options: Readonly<Record<string, string>>,
  rowGroupSize?: number,
  raisable = false,
  started?: InstanceStart,
): Promise<Shared> {
  // Only an attach takes a begun instance; until it does, this closes it on a failure.
  let begun = rowGroupSize !== undefined ? started : undefined;
  if (started && !begun) discardInstance(bindings, started);
  try {
    const writing = mode === "read_write" && file !== IN_MEMORY;
    if (writing) mkdirSync(dirname(file), { recursive: true });
    // The temporary folder is DuckDB's default for a file, and the one `attach` names.
    const spills = writing ? leftoverSpills(`${file}.tmp`) : [];
    let shared: Shared;
    if (rowGroupSize !== undefined) {
      const taken = begun;
      begun = undefined;
      shared = await attach(file, mode, options, rowGroupSize, raisable, taken);
    } else {
      shared = { instance: await DuckDBInstance.create(file, options), mode, users: 0, turns: new Turns() };
    }
    if (writing) removeLeftoverSpills(`${file}.tmp`, spills);
    return shared;
  } catch (error) {
    if (begun) discardInstance(bindings, begun);
    const version = options.storage_compatibility_version;
    // The one setting DuckDB checks that sqlload cannot: whether this DuckDB knows the version.
    if (version && /failed to set config/i.test(duckdbMessage(error))) throw notAVersion(version, duckdbMessage(error));
    throw openError(error, file, role);
  }
}

/**
 * DuckDB takes a row group size only as an option of ATTACH, for that attachment: the file is
 * attached to an in-memory instance under the name DuckDB gives a file it opens (its name without
 * the extension), and each connection starts in it, so every statement reads as it would on the
 * file opened directly. Temporary files go next to the file, as they would then too.
 *
 * A file with a write-ahead log (a run was killed after a commit, before its checkpoint) is
 * attached, when its limit is `raisable`, under DuckDB's own default limit and checkpointed before
 * the limit goes back: the log may hold long values the replay cannot spill and the checkpoint
 * must read back (duckdb-write-memory.ts), and under 256 MB every later run failed to checkpoint them.
 *
 * The in-memory instance is `started`'s when that was begun with the same options (the
 * connector's entry begins one while the client loads: duckdb-instance-start.ts), else a new one.
 */
async function attach(
  file: string,
  mode: AccessMode,
  options: Readonly<Record<string, string>>,
  rowGroupSize: number,
  raisable: boolean,
  started?: InstanceStart,
): Promise<Shared> {
  const recover = recoversLog(file, raisable);
  const wanted = attachedInstanceOptions(options, file, recover);
  let start = started;
  if (start && !begunWith(start, wanted)) {
    discardInstance(bindings, start);
    start = undefined;
  }
  const instance = new DuckDBInstance(await (start ?? startInstance(bindings, wanted)).database);
  const catalog = catalogName(file);
  try {
    const connection = await instance.connect();
    try {
      await connection.run(`ATTACH ${quoteString(file)} AS ${quoteIdent(catalog)} (ROW_GROUP_SIZE ${rowGroupSize})`);
      if (recover) {
        await connection.run(`CHECKPOINT ${quoteIdent(catalog)}`);
        await connection.run(setMemoryLimitSql(options.memory_limit ?? DEFAULT_MEMORY_LIMIT));
      }
    } finally {
      connection.closeSync();
    }
  } catch (error) {
    instance.closeSync();
    throw error;
  }
  return { instance, catalog, mode, users: 0, turns: new Turns() };
}

/**
 * DuckDB's name for a database file it opens: the file name up to its first dot (`my.data.duckdb`
 * is `my`), with `_db` after a name the in-memory instance it is attached to already has.
 */
function catalogName(file: string): string {
  const stem = basename(file).replace(/\..*$/, "");
  return ["memory", "system", "temp", "main", ""].includes(stem.toLowerCase()) ? `${stem}_db` : stem;
}

/** DuckDB's setting is per instance: every connection's next statement works under the new limit. */
function setMemoryLimitSql(size: string): string {
  return `SET GLOBAL memory_limit = ${quoteString(size)}`;
}

async function setMemoryLimit(shared: Shared, bytes: number): Promise<void> {
  const connection = await shared.instance.connect();
  try {
    await connection.run(setMemoryLimitSql(`${Math.ceil(bytes / 1e6)}MB`));
  } finally {
    connection.closeSync();
  }
}

function handle(path: string, shared: Shared, close: () => void): DuckDBDatabase {
  const connections = new Set<DuckDBConnection>();
  let released = false;
  return {
    path,
    writeMemory: shared.writeMemory,
    readMemory: shared.readMemory,
    async connect() {
      if (released) throw new SqlloadError("SL900", `the DuckDB database ${path} was used after it was closed`);
      const connection = await shared.instance.connect();
      connections.add(connection);
      if (shared.catalog) await connection.run(`USE ${quoteIdent(shared.catalog)}`);
      return connection;
    },
    disconnect(connection) {
      if (connections.delete(connection)) connection.closeSync();
    },
    serialize<T>(work: () => Promise<T>): Promise<T> {
      return shared.turns.run(work);
    },
    async release() {
      if (released) return;
      released = true;
      for (const connection of connections) connection.closeSync();
      connections.clear();
      close();
    },
  };
}
