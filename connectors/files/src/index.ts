import { createRequire } from "node:module";
import { defineConnector } from "@sqlload/core";
import { sourceKeys, sourceRoot, tableKeys, targetKeys, targetOptions } from "./files-options.js";
import { FilesSource } from "./files-source.js";
import { LocalFileStore } from "./files-store.js";
import { FilesTarget } from "./files-target.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

export default defineConnector({
  manifest: {
    name: "files",
    version,
    description: "Folders of Parquet, CSV and JSON-lines files as a source; Parquet files with an atomic manifest as a target.",
  },
  configSchema: { source: sourceKeys, target: targetKeys, table: tableKeys },
  async source(context) {
    const root = sourceRoot(context.options, context.projectDir, context.sourceName);
    return FilesSource.open(new LocalFileStore(root), context.sourceName ?? "files");
  },
  targetCapabilities: FilesTarget.capabilities,
  async target(context) {
    const options = targetOptions(context.options, context.projectDir);
    return FilesTarget.open(new LocalFileStore(options.root), options);
  },
});

export { TEST_PAUSE_ENV } from "./files-commit-unit.js";
export { collectGarbage } from "./files-gc.js";
export { MANIFEST, type Manifest, type ManifestFile, readManifest, tableDir } from "./files-manifest.js";
export { FilesSource } from "./files-source.js";
export { type FileStore, LocalFileStore, type StoredFile } from "./files-store.js";
export { FilesTarget } from "./files-target.js";
