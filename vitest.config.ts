import { defineConfig } from "vitest/config";

// One run over every package: unit tests beside the code (`src/**/*.test.ts`), integration tests
// against real engines in each connector's `test/`, end-to-end tests of the built CLI in apps/cli/test, and
// bench/*.test.ts, which runs every benchmark at its smallest size.
export default defineConfig({
  test: {
    include: ["{packages,connectors,apps,examples}/*/{src,test}/**/*.test.ts", "bench/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
