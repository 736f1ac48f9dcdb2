import type { ProjectConfig } from "@sqlload/core";
import { projectHash } from "@sqlload/queue";

/** The content hash workers compare: sqlload.toml and every table module its sources name. */
export function projectVersion(config: ProjectConfig): string {
  const modules = config.sources.map((s) => s.options.module).filter((m): m is string => typeof m === "string");
  return projectHash(config.dir, modules);
}
