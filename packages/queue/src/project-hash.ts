import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";

/**
 * The content hash of what decides a load: `sqlload.toml` and the table modules it names. Every
 * worker must run the same project; secrets in the environment or `.env` may differ by machine and
 * are left out.
 */
export function projectHash(projectDir: string, moduleFiles: readonly string[]): string {
  const hash = createHash("sha256");
  const files = ["sqlload.toml", ...moduleFiles.map((f) => (isAbsolute(f) ? relative(projectDir, f) : f))];
  for (const file of [...new Set(files)].sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(projectDir, file)));
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}
