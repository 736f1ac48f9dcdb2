import type { DatabricksSession } from "./databricks-session.js";
import type { TransactionsSetting } from "./databricks-settings.js";

/** Which commit model a target uses, and why (what `plan` prints). */
export interface CommitModelChoice {
  readonly atomic: boolean;
  readonly reason: string;
}

/** A harmless atomic block: a warehouse without multi-statement transactions fails to parse it. */
export const ATOMIC_PROBE = "BEGIN ATOMIC\n  SELECT 1;\nEND;";

/**
 * `transactions = "atomic"` or `"none"` decide; `"auto"` asks the warehouse once, with a block
 * that writes nothing, whether it runs `BEGIN ATOMIC` (Databricks SQL / Runtime 18 and later).
 */
export async function chooseCommitModel(session: DatabricksSession, setting: TransactionsSetting): Promise<CommitModelChoice> {
  if (setting === "atomic") return { atomic: true, reason: 'transactions = "atomic"' };
  if (setting === "none") return { atomic: false, reason: 'transactions = "none"' };
  try {
    await session.execute(ATOMIC_PROBE);
    return { atomic: true, reason: "the warehouse runs BEGIN ATOMIC blocks (detected)" };
  } catch (error) {
    const detail = (error as Error).message?.split("\n")[0] ?? String(error);
    return { atomic: false, reason: `the warehouse refused a BEGIN ATOMIC block (detected: ${detail.slice(0, 120)})` };
  }
}

/** The line `plan` shows for the target's commits. */
export function commitModelNote(choice: CommitModelChoice): string {
  return choice.atomic
    ? `commits: each unit is one BEGIN ATOMIC block (data and run log together), because ${choice.reason}`
    : `commits: data first (REPLACE WHERE / MERGE / INSERT, one Delta commit), then the run log, because ${choice.reason}; logged-state tables need transactions = "atomic"`;
}

/** The `plan` warning for a text cursor whose column sets a collation other than code point order. */
export function collationWarning(column: string, collation: string): string | undefined {
  if (collation.toUpperCase() === "UTF8_BINARY") return undefined;
  return `column ${column} has collation ${collation}: sqlload compares it with COLLATE UTF8_BINARY (code point order), which an index or clustering on the column's own collation does not serve`;
}
