#!/usr/bin/env node
// Writes docs/configuration.md from the table-settings schema in @sqlload/core.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { importSource } from "./import-source.mjs";

const { renderConfigDocs } = await importSource(
  join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "core", "src", "config/config-docs.ts"),
);
const file = join(dirname(fileURLToPath(import.meta.url)), "..", "docs", "configuration.md");
writeFileSync(file, renderConfigDocs());
console.log(`wrote ${file}`);
