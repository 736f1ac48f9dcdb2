import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { loadTableModule, setSqlloadModule } from "./module-loader.js";

setSqlloadModule(fileURLToPath(new URL("./api.ts", import.meta.url)));

const module = (tableName: string) =>
  `import { source } from "sqlload";\nconst api = source("api");\n` +
  `export const t = api.table({ name: ${JSON.stringify(tableName)}, columns: { id: "int64" } }, async function* () {});\n`;

describe("loadTableModule", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("caches the transpiled module by content, and a changed module is transpiled again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlload-ts-cache-"));
    dirs.push(dir);
    mkdirSync(join(dir, "node_modules"));
    writeFileSync(join(dir, "tables.ts"), module("orders"));

    const first = await loadTableModule("tables.ts", dir, "api");
    expect(first.map((t) => t.name)).toEqual(["orders"]);
    const cache = join(dir, "node_modules", ".cache", "jiti");
    expect(readdirSync(cache).filter((f) => f.startsWith(`${dir.split("/").pop()}-tables`))).toHaveLength(1);

    writeFileSync(join(dir, "tables.ts"), module("customers"));
    const second = await loadTableModule("tables.ts", dir, "api");
    expect(second.map((t) => t.name)).toEqual(["customers"]);
  });
});
