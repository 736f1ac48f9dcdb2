#!/usr/bin/env node
// Writes docs/errors.md from the error registry in @sqlload/core (packages/core/src/errors/codes.ts).
// `--check` exits 1 when the committed file is stale; the core test suite runs the same comparison.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { importSource } from "./import-source.mjs";

const { renderErrorDocs } = await importSource(
  join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "core", "src", "errors/error-docs.ts"),
);
const file = join(dirname(fileURLToPath(import.meta.url)), "..", "docs", "errors.md");
const text = renderErrorDocs();
if (process.argv.includes("--check")) {
  if (readFileSync(file, "utf8") !== text) {
    console.error("docs/errors.md is stale: run `node scripts/error-docs.mjs`");
    process.exit(1);
  }
} else {
  writeFileSync(file, text);
  console.log(`wrote ${file}`);
}
