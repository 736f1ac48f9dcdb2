import type { TargetTableRef } from "@sqlload/core";
import { describeRelation, type Queryable } from "./postgres-catalog.js";
import type { PgColumn } from "./postgres-dialect.js";
import { runLogName } from "./postgres-run-log.js";

/** What a load needs to know of a target table before it writes: its columns, and whether its schema has the run log. */
export interface TargetTableFacts {
  readonly columns: readonly PgColumn[];
  readonly runLog: boolean;
}

/** The table's columns and whether its schema's run log exists, in one round trip; null when there is no such table. */
export async function describeTargetTable(db: Queryable, ref: TargetTableRef): Promise<TargetTableFacts | null> {
  const found = await describeRelation(db, ref, runLogName(ref.schema));
  return found && { columns: found.columns, runLog: found.alsoExists };
}
