import { createRequire } from "node:module";
import { defineConnector } from "@sqlload/core";
import { openTypeScriptSource } from "./typescript-source.js";

export {
  type Checkpoint,
  type Context,
  checkpoint,
  type Row,
  source,
  type TableDefinition,
  type TableFunction,
  type TableOptions,
} from "./api.js";
export { loadTableModule, setSqlloadModule } from "./module-loader.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

export default defineConnector({
  manifest: { name: "typescript", version, description: "Tables written as TypeScript functions" },
  offersTables: true,
  configSchema: {
    source: [
      { key: "module", type: "string", required: true, description: "The module exporting the tables, relative to sqlload.toml" },
    ],
  },
  source: openTypeScriptSource,
});
