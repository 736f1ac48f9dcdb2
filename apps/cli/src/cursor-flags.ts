import { Flags } from "@oclif/core";
import { type PreparedTable, SqlloadError } from "@sqlload/core";

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
  reload: Flags.boolean({ summary: "Start the tables over: build each anew and swap it in at the end." }),
};

/** With --start-cursor/--end-cursor every selected table must share one cursor kind (SPEC §5). */
export function checkOneCursorKind(
  prepared: readonly PreparedTable[],
  flags: { "start-cursor"?: string; "end-cursor"?: string },
): void {
  if (flags["start-cursor"] === undefined && flags["end-cursor"] === undefined) return;
  const kinds = new Map<string, string[]>();
  for (const p of prepared) {
    const kind = p.plan.cursor?.kind ?? "none";
    kinds.set(kind, [...(kinds.get(kind) ?? []), `${p.plan.source}__${p.plan.key}`]);
  }
  if (kinds.size > 1) {
    const listing = [...kinds].map(([kind, tables]) => `${kind}: ${tables.join(", ")}`).join("; ");
    throw new SqlloadError(
      "SL204",
      `--start-cursor/--end-cursor need one cursor kind, but the selected tables have ${kinds.size} (${listing})`,
    );
  }
}
