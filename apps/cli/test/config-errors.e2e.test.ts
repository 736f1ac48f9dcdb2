import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sqlload, tempDir } from "./cli.js";

function project(toml: string): string {
  const dir = tempDir();
  writeFileSync(join(dir, "sqlload.toml"), toml);
  mkdirSync(join(dir, "sources"));
  writeFileSync(
    join(dir, "sources", "t.ts"),
    `import { source } from "sqlload";\nexport const items = source("t").table({ columns: { id: "bigint" } }, async function* items() { yield { id: 1 }; });\n`,
  );
  return dir;
}

describe("config errors through the CLI", () => {
  it("names code, file:line, key and a suggestion, exits 2, and connects to nothing", async () => {
    const dir = project(
      `[target]\npath = "w.duckdb"\n\n[sources.t]\nconnector = "typescript"\nmodule = "sources/t.ts"\n\n[sources.t.tables.items]\ncursor_colum = "id"\n`,
    );
    for (const command of ["check", "plan", "load"]) {
      const result = await sqlload([command], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("error SL102: unknown table setting `cursor_colum`");
      expect(result.stderr).toContain("sqlload.toml:9 sources.t.tables.items.cursor_colum");
      expect(result.stderr).toContain("did you mean `cursor_column`?");
    }
  });

  it("reports a project-less folder with SL100", async () => {
    const result = await sqlload(["plan"], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("SL100");
  });

  it("finds the project with --project from anywhere", async () => {
    const dir = project(`[target]\npath = "w.duckdb"\n\n[sources.t]\nconnector = "typescript"\nmodule = "sources/t.ts"\n`);
    const result = await sqlload(["load", "--project", dir], { cwd: tempDir() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("loaded raw.t__items 1 rows");
  });

  it("shows help with examples for every command", async () => {
    for (const command of ["init", "check", "plan", "load"]) {
      const result = await sqlload([command, "--help"], { cwd: tempDir() });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("EXAMPLES");
    }
  });
});
