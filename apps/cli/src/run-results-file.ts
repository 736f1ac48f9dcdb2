import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type LoadResult, runResultsToJSON } from "@sqlload/core";

/** Writes `.sqlload/run_results.json` in the project folder atomically (write, then rename). */
export function writeRunResults(projectDir: string, result: LoadResult, pass?: number): string {
  const dir = join(projectDir, ".sqlload");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "run_results.json");
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(runResultsToJSON({ ...result, pass }), null, 2)}\n`);
  renameSync(temp, file);
  return file;
}
