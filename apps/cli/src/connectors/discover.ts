import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Config } from "@oclif/core";
import { CORE_API_VERSION, type Connector, checkConnector, compareCodePoints, isConnector } from "@sqlload/core";

/** Where a connector was found: bundled with the CLI, installed or linked with `sqlload plugins`, or in the project. */
export type ConnectorOrigin = "bundled" | "plugin" | "linked" | "project";

export interface InstalledConnector {
  readonly name: string;
  readonly packageName: string;
  readonly version: string;
  readonly origin: ConnectorOrigin;
  readonly path: string;
  readonly connector: Connector;
}

export interface Discovery {
  readonly connectors: ReadonlyMap<string, InstalledConnector>;
  /** Problems with packages that were skipped: shown, never fatal for unrelated commands. */
  readonly warnings: readonly string[];
}

interface PackageJson {
  name?: string;
  version?: string;
  main?: string;
  exports?: unknown;
  sqlload?: { connector?: string };
}

function readJson(file: string): PackageJson {
  return JSON.parse(readFileSync(file, "utf8")) as PackageJson;
}

/** The ESM entry of a package folder, from its `exports` map or `main`. */
function entryOf(dir: string, pkg: PackageJson): string {
  const exp = pkg.exports as Record<string, unknown> | string | undefined;
  let target: unknown = typeof exp === "string" ? exp : exp?.["."];
  while (target && typeof target === "object") {
    const t = target as Record<string, unknown>;
    target = t.import ?? t.default ?? t.node;
  }
  return join(dir, typeof target === "string" ? target : (pkg.main ?? "index.js"));
}

/** Connector packages in a project's node_modules: those declaring `"sqlload": { "connector": NAME }`. */
function projectPackages(projectDir: string): string[] {
  const modules = join(projectDir, "node_modules");
  if (!existsSync(modules)) return [];
  const dirs: string[] = [];
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith(".")) continue;
    if (entry.startsWith("@")) {
      for (const sub of readdirSync(join(modules, entry))) dirs.push(join(modules, entry, sub));
    } else dirs.push(join(modules, entry));
  }
  return dirs.filter((dir) => {
    try {
      return typeof readJson(join(dir, "package.json")).sqlload?.connector === "string";
    } catch {
      return false;
    }
  });
}

const ORIGIN_OF_PLUGIN: Record<string, ConnectorOrigin> = { core: "bundled", user: "plugin", link: "linked" };

/**
 * Finds the connectors this CLI can use: oclif plugins that declare a connector (bundled ones,
 * then those added with `sqlload plugins install` or `plugins link`), then packages in the
 * project's node_modules. A package that fails to load, was built for another core API, or
 * repeats a name is skipped with a warning naming it; the first one found keeps the name.
 * With `only`, packages declaring other names are not even loaded: a command pays for the
 * connectors its project uses, not for every one installed.
 */
export async function discoverConnectors(
  config: Config,
  projectDir: string | undefined,
  only?: ReadonlySet<string>,
): Promise<Discovery> {
  const candidates: { dir: string; origin: ConnectorOrigin }[] = [];
  const plugins = config.getPluginsList();
  // Linked and user-installed plugins override bundled ones of the same name, as in oclif. oclif
  // lists plugins in the order their loads finished, which varies between runs: by name within a rank.
  const rank = (type: string) => (type === "link" ? 0 : type === "user" ? 1 : 2);
  const order = (a: (typeof plugins)[number], b: (typeof plugins)[number]) =>
    rank(a.type) - rank(b.type) || compareCodePoints(a.name, b.name);
  for (const plugin of [...plugins].sort(order)) {
    if (typeof (plugin.pjson as PackageJson).sqlload?.connector !== "string") continue;
    candidates.push({ dir: plugin.root, origin: ORIGIN_OF_PLUGIN[plugin.type] ?? "plugin" });
  }
  if (projectDir) for (const dir of projectPackages(projectDir)) candidates.push({ dir, origin: "project" });

  const connectors = new Map<string, InstalledConnector>();
  const warnings: string[] = [];
  const seenDirs = new Set<string>();
  for (const { dir, origin } of candidates) {
    if (seenDirs.has(dir)) continue;
    seenDirs.add(dir);
    let pkg: PackageJson;
    try {
      pkg = readJson(join(dir, "package.json"));
    } catch (error) {
      warnings.push(`connector package in ${dir} has no readable package.json: ${(error as Error).message}; skipped`);
      continue;
    }
    const packageName = pkg.name ?? dir;
    if (only && !only.has(pkg.sqlload?.connector ?? "")) continue;
    let connector: unknown;
    try {
      const module = (await import(pathToFileURL(entryOf(dir, pkg)).href)) as { default?: unknown };
      connector = module.default;
    } catch (error) {
      warnings.push(`connector package ${packageName} failed to load and was skipped: ${(error as Error).message}`);
      continue;
    }
    if (!isConnector(connector)) {
      warnings.push(
        `package ${packageName} declares a sqlload connector but does not default-export defineConnector(...); skipped`,
      );
      continue;
    }
    if (connector.manifest.coreApi !== CORE_API_VERSION) {
      warnings.push(
        `connector ${connector.manifest.name} (${packageName}) was built for core API ${connector.manifest.coreApi}, this sqlload speaks ${CORE_API_VERSION}; skipped (upgrade one of them)`,
      );
      continue;
    }
    try {
      // A connector built without defineConnector was not checked when it loaded.
      checkConnector(connector, packageName);
    } catch (error) {
      warnings.push(`${(error as Error).message}; skipped`);
      continue;
    }
    const existing = connectors.get(connector.manifest.name);
    if (existing) {
      warnings.push(
        `two connectors are named "${connector.manifest.name}": ${existing.packageName} (${existing.origin}) is used, ${packageName} (${origin}) is ignored`,
      );
      continue;
    }
    connectors.set(connector.manifest.name, {
      name: connector.manifest.name,
      packageName,
      version: pkg.version ?? "?",
      origin,
      path: dir,
      connector,
    });
  }
  return { connectors, warnings };
}

export function installHint(name: string): string {
  return `Install it beside the project: \`npm i -D @sqlload/connector-${name}\`, or for this CLI: \`sqlload plugins install @sqlload/connector-${name}\`; then check with \`sqlload connectors\`.`;
}
