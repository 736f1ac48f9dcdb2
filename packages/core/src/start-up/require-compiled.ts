import { createHash } from "node:crypto";
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cachedDataVersionTag, getHeapCodeStatistics } from "node:v8";
import { Script } from "node:vm";
import { addMark, type CacheFile, cacheFileBytes, parseCacheFile } from "./compile-cache-file.js";

/** The name a file loaded by requireCompiled calls instead of `import()` (kept in step with scripts/bundle-dist.mjs). */
export const DYNAMIC_IMPORT = "__sqlloadImport";

/**
 * Loads a CommonJS file as `require` would, keeping V8's compiled code for it between processes.
 *
 * Why: a client built into a package (the DuckDB client, `pg`: scripts/bundle-dist.mjs) is a few
 * hundred kilobytes of JavaScript that every run parses and compiles again before doing any work;
 * for the DuckDB client that was 40–60 ms of a no-op load, 13–18 ms from V8's code cache. Node 20
 * keeps no such cache itself (`module.enableCompileCache` came in Node 22), so this does what it
 * does, through Node's documented `vm.Script` `cachedData`: the first run compiles and, as it exits,
 * writes the cache; later runs hand it back to V8, which checks it against the source and its own
 * version and flags and compiles afresh when it does not match.
 *
 * The cache is a file per source (named by a hash of Node's version, the path and the content) in
 * `$SQLLOAD_COMPILE_CACHE`, else a folder of the user's own in the temporary folder; `0` turns it
 * off. A folder another user owns, or others may write to, is not used: code read from it would run
 * as this user. Any failure to read or write the cache only costs the compile.
 *
 * A script run so cannot use `import()` itself: Node 20 forgets a script's `importModuleDynamically`
 * once its code comes from the cache, and every `import()` in it then fails. The file gets
 * `importModule` instead, under the name {@link DYNAMIC_IMPORT}: scripts/bundle-dist.mjs rewrites
 * each `import(x)` of a client it builds in to call it, and the module that loads the client passes
 * its own `import()`. (Resolved from that module's folder: the client's dynamic imports are of
 * absolute URLs or package names, as oclif's are, which mean the same from either.)
 *
 * `modules` are what the file's `require` returns for those names instead of loading them: the ES
 * module packages a file built from a package's own code imports (`@sqlload/core`), which CommonJS
 * cannot require on Node 20, imported by the module that loads it and handed over.
 */
export function requireCompiled(
  url: URL,
  importModule?: (specifier: string) => Promise<unknown>,
  modules: Readonly<Record<string, unknown>> = {},
): unknown {
  const filename = fileURLToPath(url);
  const { source, content } = readWrapped(filename);
  const cacheFile = cachePath(filename, content);
  let cached: CacheFile | undefined;
  let partial = false;
  if (cacheFile) {
    // A whole run's cache first, else what a shorter command kept (see keepWholeRunsCode).
    for (const [file, part] of [
      [cacheFile, false],
      [partialPath(cacheFile), true],
    ] as const) {
      try {
        cached = parseCacheFile(readFileSync(file));
        partial = part;
        break;
      } catch {
        // Not cached yet.
      }
    }
  }
  const cachedData = cached?.data;
  const script = new Script(source, { filename, cachedData });
  const module = { exports: {} as unknown, filename, id: filename, loaded: false };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const noImport = (specifier: string) =>
    Promise.reject(new Error(`${filename} imported ${specifier}, but the module that loaded it passed no import()`));
  const nodeRequire = createRequire(filename);
  const require = (id: string) => (Object.hasOwn(modules, id) ? modules[id] : nodeRequire(id));
  wrapper.call(
    module.exports,
    module.exports,
    Object.assign(require, { resolve: nodeRequire.resolve, cache: nodeRequire.cache }),
    module,
    filename,
    dirname(filename),
    importModule ?? noImport,
  );
  module.loaded = true;
  const missing = cachedData === undefined || script.cachedDataRejected === true;
  if (cacheFile) considerAtExit(cacheFile, { script, missing, partial, cached });
  return module.exports;
}

/** The wrapper Node puts around a CommonJS file, on the file's first line so positions stay right. */
const WRAPPER_START = `(function (exports, require, module, __filename, __dirname, ${DYNAMIC_IMPORT}) { `;
const WRAPPER_END = "\n})";

/**
 * The file inside WRAPPER_START and WRAPPER_END as one string, and its bytes (`content`, a view of
 * the same memory). Read into one buffer with the wrapper around it rather than joined after: a
 * joined string is a pair V8 copies whole into one before it compiles it (for a file with any
 * character beyond ASCII, at two bytes a character), and a no-op load's few megabytes of such copies were
 * more than a thousand pages of fresh memory (bench/README.md, "Issue 15, 2026-12-07 19:07 UTC on").
 */
function readWrapped(filename: string): { source: string; content: Buffer } {
  const fd = openSync(filename, "r");
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      // A size it cannot tell (a pipe, a device): read to its end.
      const content = readFileSync(fd);
      return { source: `${WRAPPER_START}${content.toString("utf8")}${WRAPPER_END}`, content };
    }
    const size = stat.size;
    const start = Buffer.byteLength(WRAPPER_START);
    const buffer = Buffer.allocUnsafe(start + size + WRAPPER_END.length);
    buffer.write(WRAPPER_START, 0, "utf8");
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, start + read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    buffer.write(WRAPPER_END, start + read, "utf8");
    return {
      source: buffer.toString("utf8", 0, start + read + WRAPPER_END.length),
      content: buffer.subarray(start, start + read),
    };
  } finally {
    closeSync(fd);
  }
}

/** A script loaded through requireCompiled, as the cache it came from left it. */
interface Loaded {
  readonly script: Script;
  /** No cache, or V8 refused it: written at exit even if the run is not a whole one (as a partial cache). */
  readonly missing: boolean;
  /** Its cache is a shorter command's: a whole run replaces it. */
  readonly partial: boolean;
  /** The file its cache came from, if any. */
  readonly cached: CacheFile | undefined;
}

/** Scripts whose cache may be written at exit. */
const loaded = new Map<string, Loaded>();

/**
 * Whole runs that end holding bytecode within this many bytes of each other (V8's count for the
 * whole process) are taken for runs of one kind: runs of one kind end with the same count to the
 * byte. A cache records the kinds it is known to serve (compile-cache-file.ts); a whole run of
 * another kind asks V8 for the script's code at exit, and writes the cache again if that holds
 * SCRIPT_GROWTH_BYTES more than the file (V8's cache of a script holds what it came with as well as
 * what the run compiled, so the file then serves both kinds), else records its kind.
 *
 * Why: the cache was written once, by the first whole run after an upgrade, which is often not what
 * later runs are: a first load, a long backfill (V8 drops the bytecode of functions that have not
 * run for a while, such as those a run starts with), or another connector's table. Every later
 * no-op run then compiled afresh what it lacked: after a 9-second backfill wrote the caches,
 * no-op loads took 0.34–0.41 s against 0.27–0.32 s from caches a no-op wrote (bench/README.md,
 * "Issue 15, 2026-12-07 07:15 UTC on"). Asking V8 for a script's code costs 1–3.5 ms, so a run of
 * a kind the cache serves does not ask.
 */
export const GROWTH_BYTES = 16 * 1024;

/** How much more of V8's data for one script makes a run write its cache again (runs of one kind differ by tens of bytes). */
export const SCRIPT_GROWTH_BYTES = 4 * 1024;

/**
 * V8 compiles most functions when they are first called, not when the file loads, and a cache
 * holds the code compiled when it is made: made at exit, it holds what the whole run compiled (the
 * functions a command calls as well as those loading runs), as Node 22's own compile cache does.
 */
let exitHooked = false;
function considerAtExit(file: string, script: Loaded): void {
  if (!exitHooked) process.once("exit", () => writeCompileCaches());
  exitHooked = true;
  loaded.set(file, script);
}

// Shared by every copy of this file a process loads (each package that builds in a client has one).
const WHOLE_RUN = Symbol.for("sqlload.compileCache.wholeRun");

/**
 * Says that this process runs what later ones will (a load, not `--version` or `check`): the
 * caches it writes at exit are then whole ones, which replace what a shorter command kept. Without
 * it a run keeps a partial cache, and only where there is none: so whichever command comes first
 * after an upgrade, the first load still keeps the code a load runs.
 */
export function keepWholeRunsCode(): void {
  (globalThis as Record<symbol, unknown>)[WHOLE_RUN] = true;
}

/**
 * Writes now the caches `requireCompiled` would write at exit (for tests, and for processes that
 * end otherwise). `bytecode`: what the process holds (V8's count; tests give their own).
 */
export function writeCompileCaches(bytecode?: number): void {
  const whole = (globalThis as Record<symbol, unknown>)[WHOLE_RUN] === true;
  const held = () => bytecode ?? heldBytecode();
  for (const [file, script] of loaded) {
    if (whole) {
      if (script.missing || script.partial) writeCache(file, script.script.createCachedData(), [held()]);
      else widen(file, script, held());
    } else if (script.missing) writeCache(partialPath(file), script.script.createCachedData(), []);
  }
  loaded.clear();
}

/** A whole run of a kind the cache of `file` is not known to serve: writes it again if the run compiled more of the script, else records the kind. */
function widen(file: string, script: Loaded, held: number): void {
  const cached = script.cached;
  if (!cached || cached.marks.some((mark) => Math.abs(held - mark) < GROWTH_BYTES)) return;
  // A folder this run cannot write (another user's run may read it) is not worth asking V8 for code.
  if (!writable(dirname(file))) return;
  const data = script.script.createCachedData();
  if (data.length >= cached.data.length + SCRIPT_GROWTH_BYTES) {
    // The kinds it served are asked again: a long run may have dropped code they need.
    writeCache(file, data, [held]);
    return;
  }
  try {
    addMark(file, cached, held);
  } catch {
    // Only costs a later run of this kind the same question.
  }
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

// Shared like WHOLE_RUN: every copy's exit handler compares against the same count, taken once.
const HELD_BYTECODE = Symbol.for("sqlload.compileCache.heldBytecode");

/** The bytes of bytecode V8 holds for the whole process (what it compiled and what caches gave it), as first counted at exit. */
function heldBytecode(): number {
  const shared = globalThis as Record<symbol, unknown>;
  if (typeof shared[HELD_BYTECODE] !== "number") shared[HELD_BYTECODE] = getHeapCodeStatistics().bytecode_and_metadata_size;
  return shared[HELD_BYTECODE] as number;
}

/** Where a shorter command keeps its cache of a file whose whole cache would be `file`. */
function partialPath(file: string): string {
  return file.replace(/\.v8$/, ".part.v8");
}

/**
 * Where the compiled code of `filename` is kept, or undefined when it is not kept: a name of two
 * hashes, the file's path with V8's cache tag and then its content with Node's version, so that a
 * new build replaces the file its previous one left (see writeCache).
 */
export function cachePath(filename: string, source: string | Buffer): string | undefined {
  const dir = cacheDir();
  if (!dir) return undefined;
  // V8 refuses a cache made by another version, under other flags (NODE_OPTIONS, --max-old-space-size)
  // or on another CPU; its tag says which, so runs that differ so keep caches of their own rather
  // than each replacing the other's on every run.
  const path = createHash("sha256").update(`${filename}\0${cachedDataVersionTag()}`).digest("hex").slice(0, 16);
  const content = createHash("sha256").update(`${process.version} ${process.arch}\0`).update(source).digest("hex").slice(0, 32);
  return join(dir, `${path}-${content}.v8`);
}

function cacheDir(): string | undefined {
  const setting = process.env.SQLLOAD_COMPILE_CACHE;
  if (setting === "0") return undefined;
  const uid = process.getuid?.();
  const dir = setting || join(tmpdir(), `sqlload-compile-cache${uid === undefined ? "" : `-${uid}`}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/** How long a cache file nothing has read or written stays in the folder. */
const UNUSED_MS = 30 * 24 * 3600 * 1000;

/** When the file was last read or written (as far as the file system keeps reads: a `noatime` one does not). */
function unusedSince(path: string): number {
  try {
    const stat = statSync(path);
    return Math.max(stat.atimeMs, stat.mtimeMs);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function writeCache(file: string, data: Buffer, marks: readonly number[]): void {
  // Written beside and renamed: a run reading it meanwhile sees the old file or the new, never half of one.
  const partial = `${file}.${process.pid}.partial`;
  try {
    writeFileSync(partial, cacheFileBytes(data, marks), { mode: 0o600 });
    renameSync(partial, file);
    // What an earlier build of the same file left: it will not match again. And what nothing has
    // read for UNUSED_MS: older versions' files, other flags', a write a killed run left.
    const dir = dirname(file);
    const name = basename(file);
    const prefix = name.slice(0, name.indexOf("-") + 1);
    const now = Date.now();
    for (const other of readdirSync(dir)) {
      if (other === name) continue;
      const path = join(dir, other);
      if (other.startsWith(prefix) && other.endsWith(".v8")) rmSync(path, { force: true });
      else if (unusedSince(path) < now - UNUSED_MS) rmSync(path, { force: true });
    }
  } catch {
    // An unwritable cache (a full disk, a read-only folder) costs the next run the compile, nothing more.
    try {
      rmSync(partial, { force: true });
    } catch {
      // Nothing more to do about a folder that refuses even that.
    }
  }
}
