import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import sqlite from "node-sqlite3-wasm";
import { describe, expect, it } from "vitest";

// The guide's last step: a project uses the template through `sqlload plugins link`.
const template = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(template, "..", "..", "apps", "cli", "bin", "run.js");

describe("the template used through sqlload plugins link", () => {
  it("links, is listed, and loads a table into SQLite, incrementally", () => {
    const home = mkdtempSync(join(tmpdir(), "sqlload-home-"));
    const project = mkdtempSync(join(tmpdir(), "sqlload-sqlite-project-"));
    // oclif keeps linked plugins under XDG_DATA_HOME: keep them out of the real home.
    const env = {
      ...process.env,
      HOME: home,
      XDG_DATA_HOME: join(home, "data"),
      XDG_CONFIG_HOME: join(home, "config"),
      NODE_PATH: "",
      NO_COLOR: "1",
    };
    const sqlload = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { cwd: project, env, encoding: "utf8" });

    const link = sqlload("plugins", "link", template, "--no-install");
    expect(link.status, link.stderr).toBe(0);
    expect(sqlload("connectors").stdout).toMatch(/^sqlite\s+sqlload-connector-sqlite\s+\S+\s+target\s+linked/m);

    mkdirSync(join(project, "sources"));
    writeFileSync(
      join(project, "sources", "shop.ts"),
      `import { source } from "sqlload";
import { readFileSync } from "node:fs";
const shop = source("shop");
export const orders = shop.table({ columns: { id: "bigint not null", note: "text", at: "timestamptz" } }, async function* orders() {
  yield JSON.parse(readFileSync("rows.json", "utf8"));
});
`,
    );
    writeFileSync(
      join(project, "sqlload.toml"),
      `[target]\nconnector = "sqlite"\npath = "warehouse"\n\n[sources.shop]\nconnector = "typescript"\nmodule = "sources/shop.ts"\n\n[sources.shop.tables.orders]\ncursor_column = "at"\n`,
    );
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: i + 1,
        note: `é${i}\u{1F600}`,
        at: new Date(Date.UTC(2026, 9, 1) + i * 60_000).toISOString(),
      }));
    writeFileSync(join(project, "rows.json"), JSON.stringify(rows(100)));
    const first = sqlload("load");
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("loaded raw.shop__orders 100 rows");
    writeFileSync(join(project, "rows.json"), JSON.stringify(rows(150)));
    const second = sqlload("load");
    expect(second.status, second.stderr).toBe(0);
    expect(sqlload("plan").stdout).toContain("(destination maximum)");

    const db = new sqlite.Database(join(project, "warehouse", "raw.sqlite"), { readOnly: true });
    try {
      expect(db.get(`SELECT count(*) AS n, count(DISTINCT id) AS d FROM "shop__orders"`)).toEqual({ n: 150, d: 150 });
    } finally {
      db.close();
    }
  });
});
