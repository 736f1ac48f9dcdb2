#!/usr/bin/env node
// Writes docs/configuration.md from the table-settings schema in @sqlload/core (run after `pnpm build`).
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { renderConfigDocs } from "../packages/core/dist/config/config-docs.js";

const file = join(dirname(fileURLToPath(import.meta.url)), "..", "docs", "configuration.md");
writeFileSync(file, renderConfigDocs());
console.log(`wrote ${file}`);
