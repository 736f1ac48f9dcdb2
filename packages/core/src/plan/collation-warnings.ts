/**
 * Warnings for target columns that set a collation (SPEC §4): sqlload compares text by code point
 * and never overrides a collation the user set, so where one sits on the cursor or the primary
 * key, `plan` names the column, the collation and what follows from it.
 */
export function collationWarnings(input: {
  readonly table: string;
  readonly collations: Readonly<Record<string, string>> | undefined;
  readonly cursorColumn?: string | undefined;
  readonly primaryKey?: readonly string[] | undefined;
  /** Collations the source table's columns set: only the cursor's matters there. */
  readonly source?: { readonly table: string; readonly collations: Readonly<Record<string, string>> | undefined } | undefined;
}): string[] {
  const collations = input.collations ?? {};
  const warnings: string[] = [];
  const cursor = input.cursorColumn;
  const sourceCollation = cursor ? input.source?.collations?.[cursor] : undefined;
  if (cursor && sourceCollation) {
    warnings.push(
      `source column ${input.source?.table}.${cursor} sets collation ${sourceCollation}: sqlload does not override it, so the source compares the cursor range in that collation's order, not by code point, and rows may be read again or skipped; drop the collation from the column to compare by code point`,
    );
  }
  if (cursor && collations[cursor]) {
    warnings.push(
      `target column ${input.table}.${cursor} sets collation ${collations[cursor]}: sqlload does not override it, so the destination maximum of the cursor is taken in that collation's order, not by code point, and rows may be read again or skipped; drop the collation from the column to compare by code point`,
    );
  }
  for (const key of input.primaryKey ?? []) {
    if (key === cursor || !collations[key]) continue;
    warnings.push(
      `target column ${input.table}.${key} sets collation ${collations[key]}: sqlload does not override it, so rows are matched on the primary key in that collation (keys that differ only as it ignores, such as case, count as one)`,
    );
  }
  return warnings;
}
