import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeTargetConformance } from "@sqlload/conformance";
import sqlite from "node-sqlite3-wasm";
import connector from "../src/index.js";
import { quoteIdent } from "../src/sqlite-dialect.js";
import { schemaFile } from "../src/sqlite-files.js";

describeTargetConformance("sqlite", {
  readsNewestRunLog: true,
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
        let db: InstanceType<typeof sqlite.Database>;
        try {
          db = new sqlite.Database(file, { readOnly: true, fileMustExist: true });
        } catch {
          return null;
        }
        try {
          const exists = db.get("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", [ref.name]);
          return exists ? (db.all(`SELECT * FROM ${quoteIdent(ref.name)}`) as Record<string, unknown>[]) : null;
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
