import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { errorCodes } from "./codes.js";
import { renderErrorDocs } from "./error-docs.js";

describe("docs/errors.md", () => {
  it("is generated from the registry and up to date (node scripts/error-docs.mjs)", () => {
    const file = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "docs", "errors.md");
    expect(readFileSync(file, "utf8")).toBe(renderErrorDocs());
  });

  it("has a stable SL code, a title and a hint for every error", () => {
    for (const [code, info] of Object.entries(errorCodes)) {
      expect(code).toMatch(/^SL\d{3}$/);
      expect(info.title.length).toBeGreaterThan(3);
      expect(info.hint.length).toBeGreaterThan(3);
    }
  });
});
