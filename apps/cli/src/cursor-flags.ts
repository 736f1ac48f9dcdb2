import { Flags } from "@oclif/core";

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
      "Start the tables over: build each anew and swap it in at the end. On DuckDB and Postgres a windowed table is built window by window in a build table over as many runs as max_windows_per_run needs, the old table live until the swap; a plain load continues it. Elsewhere a reload reads every window in this run: max_windows_per_run and --max-windows do not apply.",
  }),
  restart: Flags.boolean({
    summary: "With --reload: drop a reload in progress (its build table) and start it over.",
    dependsOn: ["reload"],
  }),
};
