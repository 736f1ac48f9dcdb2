import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SqlloadError } from "@sqlload/core";
import { createJiti } from "jiti";
import { isTableDefinition, type TableDefinition } from "./api.js";

/**
 * Where a project's `import … from "sqlload"` resolves when the project has no `sqlload`
 * installed: the running CLI registers its own entry under this registry symbol (so it need not
 * import this package, and its start-up stays light), or calls `setSqlloadModule`.
 */
export const SQLLOAD_MODULE = Symbol.for("sqlload.runtime-module");

export function setSqlloadModule(path: string): void {
  (globalThis as Record<symbol, unknown>)[SQLLOAD_MODULE] = path;
}

function runtimeModule(): string | undefined {
  const path = (globalThis as Record<symbol, unknown>)[SQLLOAD_MODULE];
  return typeof path === "string" ? path : undefined;
}

/** Where `sqlload` resolves for a project: its own install first, else the running CLI, else this package's API. */
function sqlloadAlias(projectDir: string): string | undefined {
  try {
    createRequire(join(projectDir, "package.json")).resolve("sqlload/package.json");
    return undefined;
  } catch {
    return runtimeModule() ?? join(dirname(fileURLToPath(import.meta.url)), "api.js");
  }
}

/**
 * Loads a TypeScript (or JavaScript) module without a build step of the user's, and returns the
 * tables it exports for `sourceName`.
 */
export async function loadTableModule(
  modulePath: string,
  projectDir: string,
  sourceName: string,
): Promise<TableDefinition<unknown>[]> {
  const file = resolve(projectDir, modulePath);
  if (!existsSync(file)) {
    throw new SqlloadError("SL405", `module ${modulePath} of source ${sourceName} does not exist (looked for ${file})`, {
      hint: "Check `module` in [sources." + sourceName + "]; it is relative to the folder of sqlload.toml.",
    });
  }
  const alias = sqlloadAlias(projectDir);
  const jiti = createJiti(join(projectDir, "sqlload.toml"), {
    // The transpiled module is cached by its content's hash (node_modules/.cache/jiti, or the temp
    // folder): a run whose module did not change skips loading babel, about 0.3 s of every start.
    fsCache: true,
    moduleCache: false,
    interopDefault: true,
    ...(alias ? { alias: { sqlload: alias } } : {}),
  });
  let exports: Record<string, unknown>;
  try {
    exports = (await jiti.import(file)) as Record<string, unknown>;
  } catch (cause) {
    throw new SqlloadError("SL405", `module ${modulePath} of source ${sourceName} failed to load: ${(cause as Error).message}`, {
      cause,
    });
  }
  const tables: TableDefinition<unknown>[] = [];
  const seen = new Set<unknown>();
  for (const value of Object.values(exports ?? {})) {
    if (!isTableDefinition(value) || seen.has(value)) continue;
    seen.add(value);
    if (value.source !== sourceName) continue;
    value.module = modulePath;
    tables.push(value);
  }
  const names = new Set<string>();
  for (const t of tables) {
    if (names.has(t.name))
      throw new SqlloadError("SL405", `module ${modulePath} defines table ${t.name} of source ${sourceName} twice`);
    names.add(t.name);
  }
  return tables;
}
