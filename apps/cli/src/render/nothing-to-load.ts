import type { ProjectConfig } from "@sqlload/core";

/** What `plan` and `load` say for a project without tables, and how to add one. */
export function nothingToLoad(config: ProjectConfig): string {
  const why = config.sources.length
    ? `its ${config.sources.length === 1 ? "source lists" : "sources list"} no tables`
    : "it has no sources";
  return `nothing to load: ${config.file} has no tables (${why}). Add one as [sources.<name>.tables."<schema>.<table>"], or export tables from a TypeScript source's module.`;
}
