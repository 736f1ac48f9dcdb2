#!/usr/bin/env node
// Builds a published package's JavaScript as one file per entry point (its package.json `exports`,
// and for the CLI every oclif command) plus the chunks they share, from its TypeScript sources; `tsc`
// emits only the declarations. Why: Node resolves, reads and links every ES module of a package one
// by one, and a no-op `sqlload load` used to open some 120 of ours (core alone 70) before doing any
// work; a few files instead of many is most of what start-up can still lose (issue 15).
//
// Only the package's own files are bundled: every bare import (`pg`, `@sqlload/core`, `node:fs`)
// stays an import, so each package keeps its dependencies and one copy of core serves every
// connector. A package may name dependencies to build in instead (`"sqlloadBuild": {"inline":
// [...]}` in its package.json): a client of many small files. `"entries"` there adds entry points
// that are not exports (the CLI's start, which only its bin imports). What such a client depends on comes
// along unless the package declares it itself, and every built-in package's license is copied to
// dist/THIRD-PARTY-LICENSES.txt. Chunks are written beside the entries, at dist's root, so a path
// a module builds from `import.meta.url` (`../package.json`) means what it meant in the source tree.
//
// An inlined client is built apart, as one CommonJS file in dist/vendor/, and the package's modules
// import it through a small generated module that loads it with V8's code cache kept between runs
// (packages/core/src/start-up/require-compiled.ts): parsing and compiling such a client again was
// most of what loading it cost a run.
//
// A package may build its own code that way too (`"sqlloadBuild": {"cached": true}`): each entry is
// then one CommonJS file at dist's root, `<entry>.cjs`, with everything it imports built in but
// Node's own modules, the packages it depends on (`@sqlload/core`; a CommonJS one is required where
// it is imported) and the other entries it imports with `import()`, and `<entry>.js` is the module
// standing in for it, which imports the ES module packages and hands them to the file. Node
// 20 keeps no compiled code for ES modules, and core alone is some 200 kB that every command
// parsed again (the Postgres connector, with `pg`, 280 kB).
//
//   node ../../scripts/bundle-dist.mjs        (from the package's folder, after `tsc --emitDeclarationOnly`)
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";
import { parseAst } from "rolldown/parseAst";

const root = process.cwd();
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** `dist/x/y.js` → `src/x/y.ts`: the source of a built file. */
const sourceOf = (built) => {
  const path = built.replace(/^\.\//, "");
  if (!path.startsWith("dist/") || !path.endsWith(".js")) throw new Error(`${pkg.name}: entry ${built} is not a dist/*.js file`);
  return `src/${path.slice("dist/".length, -".js".length)}.ts`;
};

const entries = new Map();
const addEntry = (built) =>
  entries.set(
    built
      .replace(/^\.\/?/, "")
      .replace(/^dist\//, "")
      .replace(/\.js$/, ""),
    join(root, sourceOf(built)),
  );
for (const target of Object.values(pkg.exports ?? {})) {
  const built = typeof target === "string" ? target : (target.import ?? target.default);
  if (built?.endsWith(".js")) addEntry(built);
}
// A file only the package's own bin imports (`"sqlloadBuild": {"entries": ["./dist/run.js"]}`).
for (const built of pkg.sqlloadBuild?.entries ?? []) addEntry(built);
// oclif finds each command by its file (the manifest holds the paths), so every command is an entry.
const commands = pkg.oclif?.commands;
if (typeof commands === "string") {
  const walk = (dir) =>
    readdirSync(join(root, dir)).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) return walk(path);
      return name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts") ? [path] : [];
    });
  for (const file of walk(join("src", relative("dist", commands))))
    addEntry(`dist/${relative("src", file).replace(/\.ts$/, ".js")}`);
}
if (entries.size === 0) throw new Error(`${pkg.name}: no entry points in package.json exports`);

const inline = pkg.sqlloadBuild?.inline ?? [];
const cached = pkg.sqlloadBuild?.cached === true;
const declared = new Set(Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies }));
const packageName = (id) =>
  id
    .split("/")
    .slice(0, id.startsWith("@") ? 2 : 1)
    .join("/");

/** Whether a bare import is built in: a package named in `inline`, or what an inlined package needs. */
function isInlined(id, importer) {
  const name = packageName(id);
  if (inline.includes(name)) return true;
  if (!importer?.includes("/node_modules/") || id.startsWith("node:") || declared.has(name)) return false;
  // An import from inside an inlined package: its own dependencies come along (this package does
  // not declare them, so they could not be found beside it), except what it marks optional or
  // expects from its host (`pg-native`, `pg-cloudflare`): those stay imports, resolved only when used.
  const owner = JSON.parse(readFileSync(findManifest(importer), "utf8"));
  // Neither optional nor a peer, and a dependency at all (not a Node built-in named without `node:`).
  return !owner.optionalDependencies?.[name] && !owner.peerDependencies?.[name] && owner.dependencies?.[name] !== undefined;
}

function findManifest(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    // A folder without one, or a nested package.json that only sets `type`, is not the package's root.
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name) return manifest;
  }
  throw new Error(`${pkg.name}: no package.json above ${file}`);
}

const common = {
  platform: "node",
  // Bare specifiers are dependencies (or Node's own modules): not bundled, unless built in.
  external: (id, importer) => !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0") && !isInlined(id, importer),
  // Sources import `./x.js`, as Node resolution of the built files requires.
  resolve: { extensionAlias: { ".js": [".ts", ".js"] } },
  transform: { target: "es2022" },
  treeshake: true,
  logLevel: "warn",
  onLog(level, log, handler) {
    // A warning is a build problem here (a circular chunk, an unresolved import): fail, do not ship it.
    if (level === "warn") throw new Error(`${pkg.name}: ${log.message}`);
    handler(level, log);
  },
};

// The files loaded through the code cache are written in ASCII, without comments but licences
// (`@license`, `/*!`): V8 keeps a script's
// text at two bytes a character when any character lies beyond ASCII (a dash in a comment was
// enough), and copies it on the way, so a no-op load touched some 1,800 more pages of fresh memory
// for them (bench/README.md, "Issue 15, 2026-12-07 19:07 UTC on"). Nothing else of the code changes:
// no compression, no renaming, the whitespace kept; strings and regular expressions are escaped.
const ascii = {
  minify: { compress: false, mangle: false, codegen: { removeWhitespace: false, asciiOnly: true } },
  comments: { legal: true, annotation: false, jsdoc: false },
};

// Only declarations (and their maps) stay from tsc; every JavaScript file is the bundle's.
const removeJs = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      removeJs(path);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
    } else if (/\.(c?js)(\.map)?$/.test(name)) rmSync(path);
  }
};
removeJs(join(root, "dist"));

// Each inlined client: one CommonJS file, with what it depends on built in (see isInlined).
const VENDOR = "\0sqlload-vendor:";
const requireHere = createRequire(join(root, "package.json"));
const vendorFile = (name) => `vendor/${name.replace(/^@/, "").replace(/\//g, "-")}.cjs`;
const vendorModules = [];
for (const name of cached ? [] : inline) {
  const build = await rolldown({ ...common, input: requireHere.resolve(name) });
  // One file, even where the client imports one of its own modules lazily (oclif does).
  const { output } = await build.write({
    file: join(root, "dist", vendorFile(name)),
    format: "cjs",
    exports: "auto",
    codeSplitting: false,
    ...ascii,
  });
  await build.close();
  for (const chunk of output) if (chunk.type === "chunk") vendorModules.push(...chunk.moduleIds);
  routeDynamicImports(join(root, "dist", vendorFile(name)));
}
/**
 * Rewrites each `import(x)` of a built-in client to call the import function its loader passes
 * (`__sqlloadImport`, DYNAMIC_IMPORT in packages/core/src/start-up/require-compiled.ts): Node 20
 * loses a script's own `import()` once its code comes from V8's cache. Found by parsing the file,
 * not by searching its text, which also holds "import(" inside strings and comments.
 */
function routeDynamicImports(file) {
  const code = readFileSync(file, "utf8");
  const starts = [];
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    if (node.type === "ImportExpression") starts.push(node.start);
    for (const key in node) if (key !== "parent") visit(node[key]);
  };
  visit(parseAst(code));
  let out = code;
  for (const start of starts.sort((a, b) => b - a)) {
    if (out.slice(start, start + 6) !== "import") throw new Error(`${pkg.name}: ${file}: no import() at ${start}`);
    out = `${out.slice(0, start)}__sqlloadImport${out.slice(start + 6)}`;
  }
  if (starts.length > 0) writeFileSync(file, out);
}

const requireCompiled = fileURLToPath(new URL("../packages/core/src/start-up/require-compiled.ts", import.meta.url));

/** The module standing in for an inlined client: its exports, loaded from dist/vendor/ through the code cache. */
function vendorShim(name) {
  const exports = requireHere(join(root, "dist", vendorFile(name)));
  const names = Object.keys(exports).filter((key) => key !== "default" && /^[A-Za-z_$][\w$]*$/.test(key));
  return [
    `import { requireCompiled } from ${JSON.stringify(requireCompiled)};`,
    `const client = requireCompiled(new URL(${JSON.stringify(`./${vendorFile(name)}`)}, import.meta.url), (specifier) => import(specifier));`,
    "export default client;",
    names.length > 0 ? `export const { ${names.join(", ")} } = client;` : "",
  ].join("\n");
}

// A cached package's entries: one CommonJS file each, which may import nothing but Node's own
// modules, the packages it declares (an ES module one, which CommonJS cannot require on Node 20, is
// imported by the module standing in for it and handed over), what a built-in client requires where
// it uses it, and that module, and the package's other entries, by `import()` only: each entry holds
// its own copy of what it builds in, so a module two entries both loaded would have two states.
const CACHED = "\0sqlload-cached:";
/** Each cached entry's export names and the ES module packages it imports, by entry name. */
const cachedEntries = new Map();
if (cached) {
  for (const [name, source] of entries) {
    const file = join(root, "dist", `${name}.cjs`);
    const modules = new Set();
    const build = await rolldown({
      ...common,
      input: source,
      external: (id, importer) => {
        if (id.startsWith("node:") || builtinModules.includes(id)) return true;
        // Another entry, imported when used (`import("./open.js")`): its own file, loaded then.
        if (importer && otherEntry(id, importer, source)) return true;
        if (!common.external(id, importer)) return false;
        // What a built-in client requires only when used (`pg-native`), as its vendor file would.
        if (importer?.includes("/node_modules/")) return true;
        if (!declared.has(packageName(id)))
          throw new Error(
            `${pkg.name}: ${id}: a cached package may import only Node's modules, the packages it declares, other entries, and what it builds in`,
          );
        // A CommonJS package it declares is required, as CommonJS can (a native binding's loader).
        if (isEsmDependency(id)) modules.add(id);
        return true;
      },
    });
    const { output } = await build.write({ file, format: "cjs", exports: "named", codeSplitting: false, ...ascii });
    await build.close();
    const [entry] = output.filter((chunk) => chunk.type === "chunk");
    // An entry may reach another only by `import()`: a static import would load it with this one,
    // and a module both built in would hold two copies of its state.
    for (const imported of entry.imports) {
      if (imported.startsWith(".")) throw new Error(`${pkg.name}: ${name} imports the entry ${imported} statically; import() it`);
    }
    for (const chunk of output) if (chunk.type === "chunk") vendorModules.push(...chunk.moduleIds);
    cachedEntries.set(name, { exports: entry.exports, modules: [...modules].sort() });
    routeDynamicImports(file);
  }
}

/** Whether `id`, imported by `importer`, is the source of an entry other than `self`. */
function otherEntry(id, importer, self) {
  if (!id.startsWith(".")) return false;
  const resolved = join(dirname(importer), id).replace(/\.js$/, ".ts");
  return resolved !== self && [...entries.values()].includes(resolved);
}

/** Whether a bare import names a package this one declares and whose package.json says it is an ES module. */
function isEsmDependency(id) {
  if (!declared.has(packageName(id))) return false;
  // Declared, so linked into this package's node_modules (the package need not export its package.json).
  const manifest = join(root, "node_modules", packageName(id), "package.json");
  return JSON.parse(readFileSync(manifest, "utf8")).type === "module";
}

/**
 * The module standing in for a cached entry: its exports, loaded from `<entry>.cjs` through the
 * code cache, with the ES module packages it imports handed to it as what its `require` returns.
 */
function cachedShim(name) {
  const file = `./${name.split("/").pop()}.cjs`;
  const { exports, modules } = cachedEntries.get(name);
  const names = exports.filter((key) => key !== "default" && /^[A-Za-z_$][\w$]*$/.test(key));
  const handed = modules.map((id, i) => `${JSON.stringify(id)}: module${i}`).join(", ");
  return [
    `import { requireCompiled } from ${JSON.stringify(requireCompiled)};`,
    ...modules.map((id, i) => `import * as module${i} from ${JSON.stringify(id)};`),
    `const entry = requireCompiled(new URL(${JSON.stringify(file)}, import.meta.url), (specifier) => import(specifier)${modules.length > 0 ? `, { ${handed} }` : ""});`,
    exports.includes("default") ? "export default entry.default;" : "",
    names.length > 0 ? `export const { ${names.join(", ")} } = entry;` : "",
  ].join("\n");
}

const bundle = await rolldown({
  ...common,
  input: Object.fromEntries([...entries].map(([name, source]) => [name, cached ? CACHED + name : source])),
  plugins: [
    {
      name: "sqlload-vendor",
      resolveId(id) {
        if (id.startsWith(CACHED)) return id;
        if (!inline.includes(packageName(id))) return null;
        if (id !== packageName(id)) throw new Error(`${pkg.name}: ${id}: import the inlined package ${packageName(id)} itself`);
        return VENDOR + id;
      },
      load(id) {
        if (id.startsWith(CACHED)) return cachedShim(id.slice(CACHED.length));
        return id.startsWith(VENDOR) ? vendorShim(id.slice(VENDOR.length)) : null;
      },
    },
  ],
});

const { output } = await bundle.write({
  dir: join(root, "dist"),
  format: "esm",
  sourcemap: true,
  entryFileNames: "[name].js",
  chunkFileNames: "chunk-[hash].js",
});
await bundle.close();

// The stand-in finds its client beside the file it ends up in: that file must be at dist's root.
for (const chunk of output) {
  if (chunk.type === "chunk" && chunk.fileName.includes("/") && chunk.moduleIds.some((id) => id.startsWith(VENDOR)))
    throw new Error(`${pkg.name}: ${chunk.fileName} loads an inlined client but is not at dist's root`);
}

// Every package whose code was built in, with its license, as their licenses ask.
const inlined = new Map();
const builtIn = [...output.flatMap((chunk) => (chunk.type === "chunk" ? chunk.moduleIds : [])), ...vendorModules];
for (const id of builtIn) {
  if (!id.includes("/node_modules/")) continue;
  const manifest = findManifest(id);
  if (!inlined.has(manifest)) inlined.set(manifest, JSON.parse(readFileSync(manifest, "utf8")));
}
if (inlined.size > 0) {
  const notices = [...inlined]
    .sort(([, a], [, b]) => a.name.localeCompare(b.name))
    .map(([manifest, { name, version, license }]) => {
      const file = readdirSync(dirname(manifest)).find((f) => /^(license|licence)(\.|$)/i.test(f));
      const text = file ? readFileSync(join(dirname(manifest), file), "utf8").trim() : `License: ${license}`;
      return `${name} ${version} (${license}), built into this package's dist/:\n\n${text}\n`;
    });
  writeFileSync(join(root, "dist", "THIRD-PARTY-LICENSES.txt"), notices.join("\n---\n\n"));
}
