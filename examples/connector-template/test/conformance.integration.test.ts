import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeTargetConformance } from "@sqlload/conformance";
import Database from "better-sqlite3";
import connector from "../src/index.js";
import { quoteIdent } from "../src/sqlite-dialect.js";
import { schemaFile } from "../src/sqlite-files.js";

describeTargetConformance("sqlite", {
  // SQLite stores a NaN REAL as NULL; sqlload has no other place to keep it.
  skips: { "float.nan": "SQLite turns NaN into NULL" },
  async connect() {
    const dir = mkdtempSync(join(tmpdir(), "sqlload-sqlite-"));
    const target = await connector.target!({ options: { path: "warehouse" }, projectDir: dir, schema: "raw" });
    return {
      target,
      schema: "conformance",
      // A connection of its own, as any other reader of the file: it sees only committed work.
      async readAll(ref) {
        const file = schemaFile(join(dir, "warehouse"), ref.schema);
        let db: Database.Database;
        try {
          db = new Database(file, { readonly: true, fileMustExist: true });
        } catch {
          return null;
        }
        try {
          db.defaultSafeIntegers(true);
          const exists = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(ref.name);
          return exists ? (db.prepare(`SELECT * FROM ${quoteIdent(ref.name)}`).all() as Record<string, unknown>[]) : null;
        } finally {
          db.close();
        }
      },
      async cleanup() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
