import { defineConnector } from "@sqlload/core";
import { createRequire } from "node:module";
import { openTypeScriptSource } from "./typescript-source.js";

export { source, checkpoint, type Context, type TableOptions, type TableDefinition, type TableFunction, type Row, type Checkpoint } from "./api.js";
export { setSqlloadModule, loadTableModule } from "./module-loader.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

export default defineConnector({
  manifest: { name: "typescript", version, description: "Tables written as TypeScript functions" },
  offersTables: true,
  configSchema: {
    source: [{ key: "module", type: "string", required: true, description: "The module exporting the tables, relative to sqlload.toml" }],
  },
  source: openTypeScriptSource,
});
