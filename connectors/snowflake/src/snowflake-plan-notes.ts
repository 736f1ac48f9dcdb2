import type { CursorKind } from "@sqlload/core";
import type { CatalogColumn } from "./snowflake-types.js";

export interface PlanNoteInput {
  /** The target's cursor column as the catalog describes it; undefined when the table is absent. */
  readonly cursorColumn?: CatalogColumn | undefined;
  readonly kind: CursorKind;
  /** The default TIMEZONE of the user or account (what other tools' sessions run in), when known. */
  readonly defaultTimezone?: string | undefined;
}

/**
 * What `plan` should say about a Snowflake target table: a collation on a text cursor (sqlload
 * compares `COLLATE(c, 'utf8')`, which is right whatever the collation but may prune worse), and a
 * TIMESTAMP_NTZ cursor where sessions default to a zone other than UTC (rows written by other
 * tools in local wall time would sort against sqlload's UTC ones and be skipped). Core has no
 * target hook for plan notes yet; this is the function to wire to one.
 */
export function snowflakePlanNotes(input: PlanNoteInput): string[] {
  const notes: string[] = [];
  const column = input.cursorColumn;
  if (input.kind === "text" && column?.collation && column.collation.toLowerCase() !== "utf8") {
    notes.push(
      `cursor column "${column.name}" has collation '${column.collation}': sqlload compares COLLATE("${column.name}", 'utf8') (code point order), so Snowflake may prune micro-partitions less well on it`,
    );
  }
  const ntz = column ? column.dataType.toUpperCase() === "TIMESTAMP_NTZ" : false;
  const zone = input.defaultTimezone;
  if (input.kind === "timestamp" && ntz && zone && !/^(UTC|Etc\/UTC|GMT|Z)$/i.test(zone)) {
    notes.push(
      `cursor column "${column?.name}" is TIMESTAMP_NTZ and sessions here default to TIMEZONE '${zone}': sqlload writes and compares it as UTC wall time; rows other tools write in local time would sort wrongly against it`,
    );
  }
  return notes;
}
