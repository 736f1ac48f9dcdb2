import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sqlload, tempDir } from "./cli.js";

// Connector discovery (ARCHITECTURE.md §Discovery): bundled, `plugins link`, and the project's node_modules.
const core = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "packages", "core");

/** Writes a tiny JavaScript connector package; `body` is its module. */
function connectorPackage(root: string, name: string, body: string, extra: Record<string, unknown> = {}): string {
  const dir = join(root, ...name.split("/"));
  mkdirSync(join(dir, "node_modules", "@sqlload"), { recursive: true });
  symlinkSync(core, join(dir, "node_modules", "@sqlload", "core"));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name,
      version: "1.2.3",
      type: "module",
      main: "index.js",
      oclif: {},
      sqlload: { connector: extra.connector ?? name.split("-").pop() },
      ...extra,
    }),
  );
  writeFileSync(join(dir, "index.js"), body);
  return dir;
}

const memoryTarget = (name: string, coreApi = "") => `import { defineConnector, defaultTargetCapabilities } from "@sqlload/core";
export default defineConnector({
  manifest: { name: "${name}", version: "1.2.3"${coreApi} },
  target: async () => ({ capabilities: defaultTargetCapabilities }),
});
`;

function isolatedEnv(): Record<string, string> {
  const home = tempDir("sqlload-home-");
  // oclif keeps user plugins under XDG_DATA_HOME; keep them out of the real home.
  return {
    HOME: home,
    XDG_DATA_HOME: join(home, "data"),
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_CACHE_HOME: join(home, "cache"),
  };
}

describe("sqlload connectors", () => {
  it("lists the bundled connectors with package, version, roles and origin", async () => {
    const result = await sqlload(["connectors", "--json"], { cwd: tempDir(), env: isolatedEnv() });
    expect(result.code, result.stderr).toBe(0);
    const { connectors } = JSON.parse(result.stdout) as {
      connectors: { name: string; origin: string; source: boolean; target: boolean }[];
    };
    expect(connectors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "duckdb", origin: "bundled", source: true, target: true }),
        expect.objectContaining({ name: "postgres", origin: "bundled", source: true, target: true }),
        expect.objectContaining({ name: "typescript", origin: "bundled", source: true, target: false }),
      ]),
    );
  });

  it("finds a connector linked with `sqlload plugins link`", async () => {
    const env = isolatedEnv();
    const dir = connectorPackage(tempDir(), "sqlload-connector-memory", memoryTarget("memory"));
    const link = await sqlload(["plugins", "link", dir, "--no-install"], { cwd: tempDir(), env });
    expect(link.code, link.stderr).toBe(0);
    const list = await sqlload(["connectors"], { cwd: tempDir(), env });
    expect(list.stdout).toMatch(/memory\s+sqlload-connector-memory\s+1\.2\.3\s+target\s+linked/);
  });

  it("finds packages in the project's node_modules, and warns about broken ones without failing other commands", async () => {
    const project = tempDir();
    writeFileSync(join(project, "sqlload.toml"), `[target]\npath = "w.duckdb"\n`);
    const modules = join(project, "node_modules");
    connectorPackage(modules, "sqlload-connector-memory", memoryTarget("memory"));
    connectorPackage(modules, "sqlload-connector-old", memoryTarget("old", ", coreApi: 0"));
    connectorPackage(modules, "sqlload-connector-broken", `throw new Error("boom at load");\n`);
    connectorPackage(modules, "sqlload-connector-dup", memoryTarget("duckdb"), { connector: "duckdb" });
    const result = await sqlload(["connectors"], { cwd: project, env: isolatedEnv() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/memory\s+sqlload-connector-memory\s+1\.2\.3\s+target\s+project/);
    expect(result.stderr).toContain("sqlload-connector-old) was built for core API 0");
    expect(result.stderr).toContain("connector package sqlload-connector-broken failed to load and was skipped: boom at load");
    expect(result.stderr).toContain(
      'two connectors are named "duckdb": @sqlload/connector-duckdb (bundled) is used, sqlload-connector-dup (project) is ignored',
    );
    const check = await sqlload(["check"], { cwd: project, env: isolatedEnv() });
    expect(check.code, check.stderr).toBe(0);
  });

  it("names the install command when a project uses a connector that is not installed", async () => {
    const project = tempDir();
    writeFileSync(join(project, "sqlload.toml"), `[target]\nconnector = "bigquery"\n`);
    const result = await sqlload(["check"], { cwd: project, env: isolatedEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error SL400: connector "bigquery" is not installed');
    expect(result.stderr).toContain("npm i -D @sqlload/connector-bigquery");
  });
});
