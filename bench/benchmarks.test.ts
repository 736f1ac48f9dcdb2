import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module of the bench folder, without type declarations
import { BENCHMARKS } from "./all.mjs";

// Benchmarks are not tests: nothing here is timed. Each one runs at its smallest size (`--quick`) and
// must finish and print the figure it exists for, so a benchmark that rots is found by the suite
// and not by the next person who tries to publish a number. They run the built CLI and packages.

const here = fileURLToPath(new URL(".", import.meta.url));

function run(file: string, args: readonly string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [join(here, file), ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    proc.stdout.on("data", (d) => {
      out += d;
    });
    proc.stderr.on("data", (d) => {
      out += d;
    });
    proc.on("error", reject);
    proc.on("close", (code) => resolve({ code, out }));
  });
}

describe("benchmarks at their smallest size", () => {
  for (const { file, quick, reports } of BENCHMARKS as { file: string; quick: string[]; reports: RegExp }[]) {
    it(`${file} runs and reports its figure`, { timeout: 600_000 }, async () => {
      const { code, out } = await run(file, quick);
      expect(code, out).toBe(0);
      expect(out).toMatch(reports);
    });
  }
});
