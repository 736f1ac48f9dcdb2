import { createHash } from "node:crypto";
import type { TargetTableRef } from "@sqlload/core";

/**
 * Where the bulk path stages a table's files in the volume: one folder per target table,
 * `<volume>/_sqlload/<schema>__<table>-<hash>`. The folder's name keeps only letters, digits and
 * `_` of the names (it goes into SQL string literals and URLs) and a hash of the exact names, so
 * two tables never share a folder. Only the run holding the table's lock writes there, which is
 * what lets a run sweep every file it finds in it.
 */
export function tableFolder(volume: string, ref: TargetTableRef): string {
  const safe = (name: string) => name.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 40);
  const hash = createHash("sha256").update(`${ref.schema}\u0000${ref.name}`).digest("hex").slice(0, 12);
  return `${volume}/_sqlload/${safe(ref.schema)}__${safe(ref.name)}-${hash}`;
}

/**
 * A staged file's name: the unit's id (a fresh UUID) and the file's number in the unit. COPY INTO
 * skips a file it loaded into a table before, so a name is never used twice.
 */
export function stagedFileName(unitId: string, index: number): string {
  return `${unitId}-${String(index).padStart(4, "0")}.parquet`;
}
