import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { renderConfigDocs } from "./config-docs.js";

describe("docs/configuration.md", () => {
  it("is generated from the settings schema and up to date (node scripts/config-docs.mjs)", () => {
    const file = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "docs", "configuration.md");
    expect(readFileSync(file, "utf8")).toBe(renderConfigDocs());
  });
});
