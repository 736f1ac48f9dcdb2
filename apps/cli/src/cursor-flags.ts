import { Flags } from "@oclif/core";
import { formatTargetTable, type PlanProjectResult, SqlloadError } from "@sqlload/core";

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

/**
 * With --start-cursor/--end-cursor the values must parse and every selected table must share one
 * cursor kind (SPEC §5): usage errors, found before anything is read.
 */
export function checkRangeFlags(planned: PlanProjectResult, flags: { "start-cursor"?: string; "end-cursor"?: string }): void {
  if (flags["start-cursor"] === undefined && flags["end-cursor"] === undefined) return;
  const usage = planned.failed.find((f) => ["SL113", "SL204", "SL210", "SL211"].includes(f.error?.code ?? ""));
  if (usage?.error) throw usage.error;
  const kinds = new Map<string, string[]>();
  for (const p of planned.prepared) {
    const kind = p.plan.cursor?.kind ?? "none";
    kinds.set(kind, [...(kinds.get(kind) ?? []), formatTargetTable(p.plan.target)]);
  }
  if (kinds.size > 1) {
    const listing = [...kinds].map(([kind, tables]) => `${kind}: ${tables.join(", ")}`).join("; ");
    throw new SqlloadError(
      "SL204",
      `--start-cursor/--end-cursor need one cursor kind, but the selected tables have ${kinds.size} (${listing})`,
    );
  }
}
