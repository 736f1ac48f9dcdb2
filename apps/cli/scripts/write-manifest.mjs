#!/usr/bin/env node
// Writes oclif.manifest.json beside package.json after each build. Without a manifest, oclif imports
// every command (the worker's queue client included) on every start to learn their ids and flags;
// with it, a run imports only the command it runs, about a third less CPU per start. It runs after
// every build and again at `prepack`, so the published package carries a manifest of exactly the
// commands it ships (oclif ignores a manifest whose version differs from package.json's); turbo caches
// it with dist/. A build of the CLI with plain `tsc` leaves it behind: new commands then need `pnpm build`.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// As bin/run.js does: oclif asks for Node 22 but runs on Node 20.
process.env.OCLIF_DISABLE_ENGINE_WARNING = "1";
const { Plugin } = await import("@oclif/core");
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const plugin = new Plugin({ root, type: "core", ignoreManifest: true, errorOnManifestCreate: true });
await plugin.load();
writeFileSync(join(root, "oclif.manifest.json"), `${JSON.stringify(plugin.manifest, null, 2)}\n`);
