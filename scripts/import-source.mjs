// Imports one TypeScript module of the repository straight from its source, for the scripts that
// need a module no package exports (the docs generators, a benchmark's inner function): the
// packages' dist holds only their bundled entry points (scripts/bundle-dist.mjs).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { rolldown } from "rolldown";

export async function importSource(path) {
  const bundle = await rolldown({
    input: path,
    platform: "node",
    external: (id) => !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0"),
    resolve: { extensionAlias: { ".js": [".ts", ".js"] } },
    logLevel: "silent",
  });
  const { output } = await bundle.generate({ format: "esm" });
  await bundle.close();
  const dir = mkdtempSync(join(tmpdir(), "sqlload-source-"));
  try {
    const file = join(dir, "module.mjs");
    writeFileSync(file, output[0].code);
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
