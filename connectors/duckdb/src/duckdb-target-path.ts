import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { type ConnectorContext, SqlloadError } from "@sqlload/core";

export const DEFAULT_TARGET_PATH = "warehouse.duckdb";

export const IN_MEMORY = ":memory:";

/** The target's `path` as given (relative to the project folder), or the default. */
export function targetPath(options: ConnectorContext["options"]): string {
  const path = options.path ?? DEFAULT_TARGET_PATH;
  if (typeof path !== "string") throw new SqlloadError("SL103", "the DuckDB target's `path` must be a string");
  return path;
}

/** Whether opening the target creates nothing: its file is there already, or it lives in memory. */
export function targetExists(context: ConnectorContext): boolean {
  const path = context.options.path ?? DEFAULT_TARGET_PATH;
  return typeof path === "string" && (path === IN_MEMORY || existsSync(resolve(context.projectDir, path)));
}
