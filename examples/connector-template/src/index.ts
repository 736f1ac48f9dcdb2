import { defineConnector, SqlloadError } from "@sqlload/core";
import { SqliteTarget } from "./sqlite-target.js";

/** Where the target's files go when `sqlload.toml` gives no `path`. */
export const DEFAULT_FOLDER = "warehouse";

export default defineConnector({
  manifest: {
    name: "sqlite",
    version: "0.1.0",
    description: "SQLite: a folder of database files, one per schema.",
  },
  configSchema: {
    target: [
      {
        key: "path",
        type: "string",
        description: `The folder holding one SQLite file per schema, relative to the project (default "${DEFAULT_FOLDER}").`,
      },
    ],
  },
  async target(context) {
    const path = context.options.path ?? DEFAULT_FOLDER;
    if (typeof path !== "string") throw new SqlloadError("SL103", "the SQLite target's `path` must be a string");
    return new SqliteTarget(path, context.projectDir);
  },
});

export { SqliteTarget } from "./sqlite-target.js";
