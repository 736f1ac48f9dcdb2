import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HEADER_BYTES, MARKS } from "./compile-cache-file.js";
import {
  cachePath,
  DYNAMIC_IMPORT,
  GROWTH_BYTES,
  keepWholeRunsCode,
  requireCompiled,
  SCRIPT_GROWTH_BYTES,
  writeCompileCaches,
} from "./require-compiled.js";

let dir: string;
let cache: string;
const saved = process.env.SQLLOAD_COMPILE_CACHE;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sqlload-require-compiled-"));
  cache = join(dir, "cache");
  process.env.SQLLOAD_COMPILE_CACHE = cache;
});
afterEach(() => {
  Reflect.deleteProperty(globalThis, Symbol.for("sqlload.compileCache.wholeRun"));
  if (saved === undefined) delete process.env.SQLLOAD_COMPILE_CACHE;
  else process.env.SQLLOAD_COMPILE_CACHE = saved;
  rmSync(dir, { recursive: true, force: true });
});

/** A CommonJS file (and the helper it requires) under a fresh name, so each load runs it anew. */
function write(body: string, name = `m${Math.random().toString(36).slice(2)}.cjs`): string {
  writeFileSync(join(dir, "helper.cjs"), "module.exports = (x) => x * 2;\n");
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
}
/**
 * The bytecode a test says the process held at exit: fixed, since this process's own count grows
 * with every test (a whole run that ends holding GROWTH_BYTES more writes its cache again).
 */
const HELD = 4_000_000;
/** Loads `file`, then writes the caches the process would write at exit, holding `held` bytes of bytecode. */
const load = (file: string, held = HELD) => {
  const loaded = requireCompiled(pathToFileURL(file)) as Record<string, unknown>;
  writeCompileCaches(held);
  return loaded;
};
const inode = (name: string) => statSync(join(cache, name)).ino;
const cached = () => readdirSync(cache).filter((f) => f.endsWith(".v8"));

describe("requireCompiled", () => {
  it("runs a file as require does: its own exports, require beside it, __filename and __dirname", () => {
    const file = write(
      `
      const double = require("./helper.cjs");
      const { join } = require("node:path");
      exports.answer = double(21);
      exports.self = this === module.exports;
      exports.where = join(__dirname, "x") === join(${JSON.stringify(dir)}, "x") && __filename === ${JSON.stringify(join(dir, "a.cjs"))};
    `,
      "a.cjs",
    );
    expect(load(file)).toEqual({ answer: 42, self: true, where: true });
  });

  it("gives the file the import() of the module that loads it, compiled and from the cache alike", async () => {
    writeFileSync(join(dir, "command.mjs"), "export const id = 'load';\n");
    const url = pathToFileURL(join(dir, "command.mjs")).href;
    // As scripts/bundle-dist.mjs leaves a client that imports a module: called at load and later.
    const file = write(`exports.first = ${DYNAMIC_IMPORT}(${JSON.stringify(url)});
      exports.later = () => ${DYNAMIC_IMPORT}(${JSON.stringify(url)});`);
    for (let run = 0; run < 3; run++) {
      const loaded = requireCompiled(pathToFileURL(file), (specifier) => import(specifier)) as {
        first: Promise<{ id: string }>;
        later: () => Promise<{ id: string }>;
      };
      writeCompileCaches(HELD);
      await expect(loaded.first).resolves.toMatchObject({ id: "load" });
      await expect(loaded.later()).resolves.toMatchObject({ id: "load" });
    }
    expect(cached()).toHaveLength(1);
    // Loaded without one, the file's import() fails and says why.
    const bare = load(write(`exports.later = () => ${DYNAMIC_IMPORT}(${JSON.stringify(url)});`)) as {
      later: () => Promise<unknown>;
    };
    await expect(bare.later()).rejects.toThrow(/passed no import\(\)/);
  });

  it("keeps, once the process has run, the code of the functions it called after loading too", () => {
    // A function that only runs after loading, as most of a command's do.
    const body = `exports.later = (n) => { let s = 0; for (let i = 0; i < n; i++) s += [i, i * 2, i * 3].map((x) => x % 7).reduce((a, b) => a + b, 0); return s; };`;
    const sizes = [false, true].map((call) => {
      const file = write(body);
      const loaded = requireCompiled(pathToFileURL(file)) as { later: (n: number) => number };
      if (call) expect(loaded.later(10)).toBe(81);
      writeCompileCaches(HELD);
      const written = cached().map((f) => statSync(join(cache, f)));
      const newest = written.sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
      rmSync(cache, { recursive: true, force: true });
      return newest?.size ?? 0;
    });
    expect(sizes[1]).toBeGreaterThan(sizes[0] ?? 0);
  });

  it("keeps a shorter command's cache apart, and replaces it with the first whole run's", () => {
    const file = write("exports.later = () => [1, 2].map((x) => x * 3);");
    // `--version` or `check` first after an upgrade: a partial cache, where there was none.
    load(file);
    expect(cached()).toEqual([expect.stringMatching(/\.part\.v8$/)]);
    const partial = statSync(join(cache, cached()[0]!)).ino;
    load(file);
    expect(statSync(join(cache, cached()[0]!)).ino).toBe(partial);
    // Then a load: it starts from the partial cache and keeps a whole one in its place.
    keepWholeRunsCode();
    const loaded = requireCompiled(pathToFileURL(file)) as { later: () => number[] };
    expect(loaded.later()).toEqual([3, 6]);
    writeCompileCaches(HELD);
    expect(cached()).toEqual([expect.stringMatching(/[0-9a-f]\.v8$/)]);
    // Whole, it serves every later run, and none writes it again.
    const whole = statSync(join(cache, cached()[0]!)).ino;
    expect(load(file)).toMatchObject({});
    expect(cached().map((f) => statSync(join(cache, f)).ino)).toEqual([whole]);
    Reflect.deleteProperty(globalThis, Symbol.for("sqlload.compileCache.wholeRun"));
    load(file);
    expect(cached().map((f) => statSync(join(cache, f)).ino)).toEqual([whole]);
  });

  /** A function whose bytecode takes several KB of V8's cache once it has run. */
  const big = (name: string) =>
    `exports.${name} = (n) => { let s = 0; ${Array.from({ length: 400 }, (_, i) => `s += (n * ${i + 1}) % ${i + 7};`).join(" ")} return s; };`;
  const marksOf = (name: string) => {
    const file = readFileSync(join(cache, name));
    return [...Array(MARKS).keys()].map((i) => file.readUInt32LE(HEADER_BYTES - 4 * (MARKS - i))).filter((m) => m > 0);
  };

  /** A whole run that calls `a` of a file of two such functions and writes its cache: the file, the cache's name and inode. */
  const firstRun = () => {
    keepWholeRunsCode();
    const file = write(`${big("a")}\n${big("b")}`);
    (requireCompiled(pathToFileURL(file)) as { a: (n: number) => number }).a(1);
    writeCompileCaches(HELD);
    const name = cached()[0];
    return { file, name, first: inode(name!) };
  };

  it("asks nothing of V8 at the exit of a whole run of a kind the cache serves", () => {
    const { file, name, first } = firstRun();
    expect(marksOf(name!)).toEqual([HELD]);
    // Within GROWTH_BYTES of its mark: taken for the same kind, even though it compiled `b`.
    (requireCompiled(pathToFileURL(file)) as { b: (n: number) => number }).b(1);
    writeCompileCaches(HELD + GROWTH_BYTES - 1);
    expect(inode(name!)).toBe(first);
    expect(marksOf(name!)).toEqual([HELD]);
  });

  it("writes a whole cache again when a run of another kind compiled more of the script, with the code of both", () => {
    const { file, name, first } = firstRun();
    const size = statSync(join(cache, name!)).size;
    // As a no-op run after a first load's cache: it calls what the first did not.
    const again = requireCompiled(pathToFileURL(file)) as Record<string, (n: number) => number>;
    again.a!(2);
    again.b!(2);
    writeCompileCaches(HELD + GROWTH_BYTES);
    expect(inode(name!)).not.toBe(first);
    expect(statSync(join(cache, name!)).size).toBeGreaterThan(size + SCRIPT_GROWTH_BYTES);
    // The kinds it served are asked again: this run's is the one it knows.
    expect(marksOf(name!)).toEqual([HELD + GROWTH_BYTES]);
    // Read back by V8, and asked nothing by this kind of run any more.
    const third = requireCompiled(pathToFileURL(file)) as Record<string, (n: number) => number>;
    expect(third.b!(3)).toBe(again.b!(3));
    const second = inode(name!);
    writeCompileCaches(HELD + GROWTH_BYTES + 100);
    expect(inode(name!)).toBe(second);
  });

  it("records, without writing the code again, a kind of run that compiled nothing the cache lacks", () => {
    keepWholeRunsCode();
    const file = write(`${big("a")}\n${big("b")}`);
    const first = requireCompiled(pathToFileURL(file)) as Record<string, (n: number) => number>;
    first.a!(1);
    first.b!(1);
    writeCompileCaches(HELD);
    const [name] = cached();
    const before = inode(name!);
    const data = readFileSync(join(cache, name!)).subarray(HEADER_BYTES);
    // Fewer functions called, and far less bytecode held: a long run whose V8 dropped some.
    (requireCompiled(pathToFileURL(file)) as Record<string, (n: number) => number>).a!(1);
    writeCompileCaches(HELD / 2);
    expect(inode(name!)).toBe(before);
    expect(readFileSync(join(cache, name!)).subarray(HEADER_BYTES).equals(data)).toBe(true);
    expect(marksOf(name!)).toEqual([HELD / 2, HELD]);
    // Either kind is now served as it is.
    requireCompiled(pathToFileURL(file));
    writeCompileCaches(HELD + 10);
    requireCompiled(pathToFileURL(file));
    writeCompileCaches(HELD / 2 - 10);
    expect(inode(name!)).toBe(before);
    expect(marksOf(name!)).toEqual([HELD / 2, HELD]);
  });

  it("counts a cache file that does not match its header (an older sqlload's, cut short, damaged) as none, and writes one that does", () => {
    const file = write("exports.ok = [1, 2].map((x) => x + 1);");
    load(file);
    const [name] = cached();
    const path = join(cache, name!);
    const written = readFileSync(path);
    const damaged = Buffer.from(written);
    damaged[damaged.length - 9]! ^= 0xff;
    for (const bad of [written.subarray(HEADER_BYTES), written.subarray(0, written.length - 1), damaged]) {
      writeFileSync(path, bad);
      const was = statSync(path).ino;
      // V8 is never handed it (damaged data can crash V8 outright): compiled afresh and written again.
      expect(load(file)).toEqual({ ok: [2, 3] });
      expect(statSync(path).ino).not.toBe(was);
      expect(readFileSync(path).subarray(0, 4).toString("latin1")).toBe("SQLC");
    }
  });

  it("keeps the caches of runs under other V8 flags apart (V8 refuses a cache made under other flags)", () => {
    const file = write("exports.n = 1;");
    const source = readFileSync(file, "utf8");
    const plain = cachePath(file, source);
    // The flag bin/run.js sets at start; 0 is V8's default.
    setFlagsFromString("--heap-growing-percent=300");
    try {
      const other = cachePath(file, source);
      expect(other).not.toBe(plain);
      // The content part is the same: an upgrade still replaces each one's own file.
      expect(other!.split("-").at(-1)).toBe(plain!.split("-").at(-1));
    } finally {
      setFlagsFromString("--heap-growing-percent=0");
    }
    expect(cachePath(file, source)).toBe(plain);
  });

  it("removes, when it writes a cache, the files nothing has read for 30 days, and no other", () => {
    const kept = write("exports.k = 1;");
    load(kept);
    const old = join(cache, "0123456789abcdef-00000000000000000000000000000000.v8");
    const recent = join(cache, "fedcba9876543210-00000000000000000000000000000000.v8");
    writeFileSync(old, "an older version's");
    writeFileSync(recent, "another flag's");
    const long = new Date(Date.now() - 31 * 24 * 3600 * 1000);
    utimesSync(old, long, long);
    load(write("exports.w = 2;"));
    expect(existsSync(old)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(cached()).toHaveLength(3);
  });

  it("hands the file, for the names in `modules`, what they map to, and requires the rest as Node would", () => {
    const core = { version: "handed" };
    const file = write(
      `const core = require("@sqlload/core"); exports.version = core.version; exports.twice = require("./helper.cjs")(21);
       exports.resolved = require.resolve("./helper.cjs");`,
    );
    const loaded = requireCompiled(pathToFileURL(file), undefined, { "@sqlload/core": core }) as Record<string, unknown>;
    expect(loaded).toEqual({ version: "handed", twice: 42, resolved: join(dir, "helper.cjs") });
    // Without it the name is Node's to resolve: here, a package that is not there.
    expect(() => requireCompiled(pathToFileURL(write('require("@sqlload/not-a-package");')))).toThrow(/Cannot find module/);
  });

  it("gives module.exports replaced by the file", () => {
    expect(load(write("module.exports = function hello() { return 'hi'; };"))).toBeTypeOf("function");
  });

  it("writes V8's compiled code on the first load and hands it back on the next, which V8 accepts", () => {
    const file = write("exports.n = [1, 2, 3].map((x) => x + 1);");
    load(file);
    expect(cached()).toHaveLength(1);
    const path = join(cache, cached()[0]!);
    const first = statSync(path);
    expect(load(file)).toEqual({ n: [2, 3, 4] });
    // Rejected data would have been written again (a new file renamed over the old one).
    expect(statSync(path).ino).toBe(first.ino);
  });

  it("compiles afresh over a cache it cannot use, and replaces it", () => {
    const file = write("exports.ok = true;");
    const path = cachePath(file, readFileSync(file, "utf8"))!;
    mkdirSync(cache, { recursive: true, mode: 0o700 });
    writeFileSync(path, "not V8's code cache");
    expect(load(file)).toEqual({ ok: true });
    // Replaced by what this run compiled (a partial cache: the run is not a whole one).
    expect(cached()).toEqual([basename(path).replace(/\.v8$/, ".part.v8")]);
  });

  it("keeps one cache per file: a changed file replaces what its previous content left", () => {
    const file = write("exports.v = 1;", "same.cjs");
    load(file);
    const before = cached();
    writeFileSync(file, "exports.v = 2;");
    expect(load(file)).toEqual({ v: 2 });
    expect(cached()).toHaveLength(1);
    expect(cached()).not.toEqual(before);
  });

  it("keeps nothing with SQLLOAD_COMPILE_CACHE=0, or in a folder others may write to", () => {
    process.env.SQLLOAD_COMPILE_CACHE = "0";
    expect(load(write("exports.a = 1;"))).toEqual({ a: 1 });
    const open = join(dir, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    process.env.SQLLOAD_COMPILE_CACHE = open;
    expect(load(write("exports.b = 2;"))).toEqual({ b: 2 });
    expect(readdirSync(open)).toEqual([]);
  });

  it("still loads when the cache folder cannot be made", () => {
    writeFileSync(join(dir, "file"), "");
    process.env.SQLLOAD_COMPILE_CACHE = join(dir, "file", "cache");
    expect(load(write("exports.c = 3;"))).toEqual({ c: 3 });
  });

  it("reads a file's text beyond ASCII as it is, a last line with no newline, and names its cache as its text did", () => {
    const text = "caf\u00e9 \u2014 \u{1F600}";
    const file = write(`exports.text = "${text}"; exports.n = 1 // a comment ends the file`, "utf8.cjs");
    keepWholeRunsCode();
    expect(load(file)).toEqual({ text, n: 1 });
    // Named as the file's text names it, as before it was named by its bytes.
    expect(cached()).toEqual([basename(cachePath(file, readFileSync(file, "utf8")) ?? "")]);
  });

  it("lets an error of the file through, naming the file", () => {
    const file = write("\nthrow new Error('boom');", "bad.cjs");
    let error: Error | undefined;
    try {
      load(file);
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toBe("boom");
    expect(error?.stack).toContain(`${file}:2`);
  });
});
