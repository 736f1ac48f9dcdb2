import { defineConfig } from "vitest/config";

// The template's own test settings, so `npm test` works once the template is copied out of the
// sqlload repository: unit tests beside the code, integration tests against a real SQLite in `test/`.
export default defineConfig({
  test: {
    include: ["{src,test}/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
