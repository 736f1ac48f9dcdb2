import type { TableMetadata } from "./bigquery-catalog.js";

/**
 * The `plan` notes for a table whose text is compared under a collation (`und:ci`) rather than
 * BigQuery's default binary order: sqlload still compares cursors by code point
 * (`CAST(c AS BYTES)`), but the table's own queries, MERGE keys and GROUP BYs follow the collation.
 */
export function collationNotes(table: TableMetadata | null, datasetCollation: string | undefined, cursor?: string): string[] {
  const notes: string[] = [];
  const tableCollation = table?.defaultCollation || datasetCollation;
  if (tableCollation) {
    notes.push(
      `collation: new text columns of this table default to '${tableCollation}'; sqlload compares its cursor by code point (CAST(c AS BYTES)), other queries follow the collation`,
    );
  }
  for (const field of table?.schema?.fields ?? []) {
    if (field.collation && field.collation !== tableCollation) {
      const what = field.name === cursor ? "the cursor column" : "column";
      notes.push(`collation: ${what} "${field.name}" sets '${field.collation}'; sqlload compares cursors by code point`);
    }
  }
  return notes;
}
