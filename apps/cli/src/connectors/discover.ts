import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CORE_API_VERSION, type Connector, isConnector } from "@sqlload/core";

export type ConnectorOrigin = "bundled" | "project";

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
  sqlload?: { connector?: string; bundledConnectors?: string[] };
}

const cliRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

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
    const file = join(dir, "package.json");
    try {
      return existsSync(file) && typeof readJson(file).sqlload?.connector === "string";
    } catch {
      return false;
    }
  });
}

/**
 * Finds the connectors this CLI can use: those bundled with it, then those installed in the
 * project. A package that fails to load, was built for another core API, or repeats a name is
 * skipped with a warning naming it.
 */
export async function discoverConnectors(projectDir: string | undefined): Promise<Discovery> {
  const cliPkg = readJson(join(cliRoot, "package.json"));
  const requireFromCli = createRequire(join(cliRoot, "package.json"));
  const candidates: { dir: string; origin: ConnectorOrigin }[] = [];
  for (const name of cliPkg.sqlload?.bundledConnectors ?? []) {
    try {
      candidates.push({ dir: dirname(requireFromCli.resolve(`${name}/package.json`)), origin: "bundled" });
    } catch {
      // A bundled connector missing from the install is reported by the lookup that needs it.
    }
  }
  if (projectDir) for (const dir of projectPackages(projectDir)) candidates.push({ dir, origin: "project" });

  const connectors = new Map<string, InstalledConnector>();
  const warnings: string[] = [];
  for (const { dir, origin } of candidates) {
    const pkg = readJson(join(dir, "package.json"));
    const packageName = pkg.name ?? dir;
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
    const existing = connectors.get(connector.manifest.name);
    if (existing) {
      if (existing.path !== dir) {
        warnings.push(
          `two connectors are named "${connector.manifest.name}": ${existing.packageName} (${existing.origin}) is used, ${packageName} (${origin}) is ignored`,
        );
      }
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
  return `Install it beside the project: \`npm i -D @sqlload/connector-${name}\` (or run \`npx -p sqlload -p @sqlload/connector-${name} sqlload …\`), then check with \`sqlload connectors\`.`;
}
