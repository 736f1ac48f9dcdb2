import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeSourceConformance, type SourceHarness } from "@sqlload/conformance";
import { formatLogicalType } from "@sqlload/core";
import connector, { setSqlloadModule } from "../src/index.js";

// Run from source, `import { source } from "sqlload"` in the generated module must reach this
// package's API file (the built CLI registers its own entry the same way).
setSqlloadModule(fileURLToPath(new URL("../src/api.ts", import.meta.url)));

/**
 * Each test's tables become one module in a temporary folder, written when the source opens: a
 * table per `createTable`, declaring its columns and yielding its rows as literals. The functions
 * ignore the range they are given, which is the point: the source is not `exactRange`, so the
 * suite filters like the engine does.
 */
const harness: SourceHarness = {
  async connect() {
    const dir = mkdtempSync(join(tmpdir(), "sqlload-ts-conformance-"));
    const tables: string[] = [];
    return {
      async createTable(name, columns, rows) {
        const declared = Object.fromEntries(
          columns.map((c) => [c.name, formatLogicalType(c.type) + (c.nullable ? "" : " not null")]),
        );
        tables.push(
          `export const t${tables.length} = conformance.table(${literal({ name, columns: declared })}, async function* () {\n` +
            `  yield ${literal(rows)};\n});\n`,
        );
        return { name, key: JSON.stringify(name) };
      },
      async openSource() {
        writeFileSync(
          join(dir, "tables.mjs"),
          `import { source } from "sqlload";\nconst conformance = source("conformance");\n${tables.join("")}`,
        );
        return connector.source!({ options: { module: "tables.mjs" }, projectDir: dir, sourceName: "conformance" });
      },
      async cleanup() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/** A JavaScript literal for a row value: bigints, NaN, ±Infinity and bytes included. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (value instanceof Uint8Array) return `new Uint8Array([${value.join(",")}])`;
  if (Array.isArray(value)) return `[${value.map(literal).join(", ")}]`;
  return `{ ${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${JSON.stringify(k)}: ${literal(v)}`)
    .join(", ")} }`;
}

describeSourceConformance("typescript", harness);
