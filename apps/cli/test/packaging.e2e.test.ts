import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { publint } from "publint";
import { describe, expect, it } from "vitest";
import { queryDuckDB, tempDir } from "./cli.js";

// Every published package builds to dist with types and an exports map and passes publint; the
// packed CLI with its connectors installs into an empty folder with no registry access and works.
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  exports?: Record<string, unknown>;
}

const published = ["packages", "connectors", "apps"]
  .flatMap((group) => readdirSync(join(root, group)).map((name) => join(root, group, name)))
  .filter((dir) => existsSync(join(dir, "package.json")))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest }))
  .filter(({ manifest }) => !manifest.private);

describe("published packages", () => {
  it.each(published.map((p) => [p.manifest.name, p] as const))(
    "%s has an exports map with types and passes publint",
    async (_name, { dir, manifest }) => {
      expect(manifest.exports?.["./package.json"]).toBe("./package.json");
      expect(manifest.exports?.["."]).toMatchObject({ types: expect.stringMatching(/^\.\/dist\/.*\.d\.ts$/) });
      const { messages } = await publint({ pkgDir: dir, level: "warning", strict: true });
      expect(messages).toEqual([]);
    },
  );

  // Start-up reads a few files per package, not one per module (scripts/bundle-dist.mjs); a client
  // built in is one CommonJS file in dist/vendor/, and a cached package's entry one beside it,
  // loaded through V8's code cache.
  it.each(published.map((p) => [p.manifest.name, p] as const))(
    "%s ships its JavaScript bundled: its entries, their chunks and its built-in clients",
    (_name, { dir }) => {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest & {
        oclif?: { commands?: string };
        sqlloadBuild?: { inline?: string[]; entries?: string[]; cached?: boolean };
      };
      const entries = Object.values(manifest.exports ?? {})
        .map((target) => (typeof target === "string" ? target : (target as { import?: string }).import))
        .filter((file): file is string => file?.endsWith(".js") === true)
        .concat(manifest.sqlloadBuild?.entries ?? [])
        .map((file) => file.replace(/^\.\/dist\//, ""));
      // A cached package is one CommonJS file per entry, its built-in clients inside.
      const commonJs = manifest.sqlloadBuild?.cached
        ? entries.map((entry) => entry.replace(/\.js$/, ".cjs"))
        : (manifest.sqlloadBuild?.inline ?? []).map((name) => `vendor/${name.replace(/^@/, "").replace(/\//g, "-")}.cjs`);
      const all = readdirSync(join(dir, "dist"), { recursive: true }) as string[];
      expect(all.filter((f) => f.endsWith(".cjs")).sort()).toEqual([...commonJs].sort());
      const files = all.filter((f) => f.endsWith(".js"));
      const commands = manifest.oclif?.commands ? files.filter((f) => f.startsWith("commands/")) : [];
      expect(files.filter((f) => !entries.includes(f) && !commands.includes(f) && !/^chunk-[\w-]+\.js$/.test(f))).toEqual([]);
      for (const entry of entries) expect(files).toContain(entry);
    },
  );
});

/**
 * Overrides that hold the packed install's third-party packages to the versions the workspace
 * lockfile locked, one per major (minor below 1.0), so it resolves to what the store holds: offline,
 * pnpm resolves from its cached metadata, which a fresh `pnpm install` brings up to the registry's
 * latest, and a release newer than the lockfile is in the metadata but not in the store.
 */
function lockedVersions(): string[] {
  const newest = new Map<string, { selector: string; version: string }>();
  let inPackages = false;
  for (const line of readFileSync(join(root, "pnpm-lock.yaml"), "utf8").split("\n")) {
    if (/^\S/.test(line)) inPackages = line === "packages:";
    const match = inPackages ? /^ {2}'?((?:@[^/@]+\/)?[^@'\s]+)@(\d+)\.(\d+)\.(\d+)'?:$/.exec(line) : null;
    if (!match) continue;
    const [, name, major, minor, patch] = match as unknown as [string, string, string, string, string];
    const selector = major === "0" ? `${name}@0.${minor}` : `${name}@${major}`;
    const version = `${major}.${minor}.${patch}`;
    const seen = newest.get(selector);
    if (!seen || compareVersions(version, seen.version) > 0) newest.set(selector, { selector, version });
  }
  return [...newest.values()].map(({ selector, version }) => `  "${selector}": "${version}"`);
}

function compareVersions(a: string, b: string): number {
  const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return 0;
}

describe("packed install, offline", () => {
  it("installs sqlload and its connectors from tarballs with no registry, then runs --help, connectors and a quickstart load", () => {
    const packs = tempDir("sqlload-packs-");
    const tarballs = new Map<string, string>();
    for (const { dir, manifest } of published) {
      execFileSync("pnpm", ["pack", "--pack-destination", packs], { cwd: dir, stdio: "ignore" });
      const file = `${manifest.name.replace("@", "").replace("/", "-")}-${manifest.version}.tgz`;
      expect(existsSync(join(packs, file)), file).toBe(true);
      tarballs.set(manifest.name, join(packs, file));
    }
    // The CLI ships its oclif manifest, so a user's start imports only the command it runs.
    const cliFiles = execFileSync("tar", ["-tzf", tarballs.get("sqlload")!], { encoding: "utf8" });
    expect(cliFiles).toMatch(/^package\/oclif\.manifest\.json$/m);
    const app = tempDir("sqlload-install-");
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({ name: "an-empty-project", private: true, dependencies: { sqlload: `file:${tarballs.get("sqlload")}` } }),
    );
    // Workspace dependencies of the tarballs resolve to the other tarballs, never to a registry.
    const overrides = [...tarballs].filter(([name]) => name !== "sqlload").map(([name, file]) => `  "${name}": "file:${file}"`);
    writeFileSync(
      join(app, "pnpm-workspace.yaml"),
      `overrides:\n${[...overrides, ...lockedVersions()].join("\n")}\nallowBuilds:\n  yarn: false\n  msgpackr-extract: false\n`,
    );
    const env = { ...process.env, NODE_PATH: "", npm_config_offline: "true", npm_config_registry: "http://127.0.0.1:9/" };
    execFileSync("pnpm", ["install", "--offline"], { cwd: app, env, stdio: "pipe" });

    const npx = (args: string[], cwd = app) =>
      execFileSync("npx", ["--no-install", "sqlload", ...args], { cwd, env, encoding: "utf8" });
    expect(npx(["--help"])).toContain("load");
    const connectors = npx(["connectors"]);
    for (const name of ["duckdb", "postgres", "typescript", "files"])
      expect(connectors).toMatch(new RegExp(`^${name}\\s+@sqlload/connector-${name}\\s`, "m"));
    // The Postgres connector carries its driver built in: it neither declares nor imports `pg`, and it loads.
    const connector = createRequire(join(app, "node_modules", "sqlload", "package.json")).resolve("@sqlload/connector-postgres");
    const connectorManifest = JSON.parse(readFileSync(join(dirname(connector), "..", "package.json"), "utf8"));
    expect(connectorManifest.dependencies).not.toHaveProperty("pg");
    expect(readFileSync(connector, "utf8")).not.toMatch(/from "pg"|require\("pg"\)/);
    const loaded = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const m = await import(${JSON.stringify(pathToFileURL(connector).href)}); console.log(m.default.manifest.name)`,
      ],
      { env, encoding: "utf8" },
    );
    expect(loaded.trim()).toBe("postgres");
    npx(["init", "q"]);
    const load = npx(["load"], join(app, "q"));
    expect(load).toMatch(/loaded raw\.shop__orders 100,000 rows/);
    return queryDuckDB(join(app, "q", "warehouse.duckdb"), "select count(*)::int as n from raw.shop__orders").then((rows) =>
      expect(rows).toEqual([{ n: 100000 }]),
    );
  });
});
