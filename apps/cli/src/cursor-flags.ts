import { Flags } from "@oclif/core";
import type { ProjectConfig } from "@sqlload/core";

/** Flags `plan` and `load` share: which range to read and whether to start over. */
export const readFlags = {
  "start-cursor": Flags.string({
    summary: "Read from this cursor value (inclusive): an integer, an RFC 3339 timestamp or a date.",
    helpValue: "VALUE",
  }),
  "end-cursor": Flags.string({
    summary: "Read up to this cursor value (exclusive). With --start-cursor, replaces exactly [start, end) under delete_insert.",
    helpValue: "VALUE",
  }),
  reload: Flags.boolean({
    summary:
      "Start the tables over: build each anew and swap it in at the end. A reload reads every window in this run: max_windows_per_run and --max-windows do not apply.",
  }),
};

/** What `plan` and `load` say for a project without tables, and how to add one. */
export function nothingToLoad(config: ProjectConfig): string {
  const why = config.sources.length
    ? `its ${config.sources.length === 1 ? "source lists" : "sources list"} no tables`
    : "it has no sources";
  return `nothing to load: ${config.file} has no tables (${why}). Add one as [sources.<name>.tables."<schema>.<table>"], or export tables from a TypeScript source's module.`;
}
