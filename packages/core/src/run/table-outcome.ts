import type { CursorValue } from "../cursor/cursor-value.js";
import { asSqlloadError, isSqlloadError, type SqlloadError } from "../errors/sqlload-error.js";
import type { TableResult } from "../events/run-event.js";
import { interruptedError } from "./read-items.js";

/** How a table's failed load is reported, and the event that says so. */
export interface FailureOutcome {
  readonly status: "failed" | "skipped";
  readonly event: "table_failed" | "table_skipped";
  readonly error: SqlloadError;
}

/**
 * Classifies a table's failure, wherever it happened (planning, locking, reading, committing):
 * an error after an interruption is SL307 unless it already says what it is; anything uncoded
 * becomes `fallback`. A retryable failure before anything committed left the table as it was:
 * skipped (exit 75), not failed.
 */
export function classifyFailure(
  error: unknown,
  context: {
    readonly table: string;
    readonly interrupted: boolean;
    readonly committedAnything: boolean;
    readonly fallback: string;
  },
): FailureOutcome {
  const { table } = context;
  const err =
    context.interrupted && !isSqlloadError(error)
      ? interruptedError(table)
      : asSqlloadError(error, "SL304", context.fallback, { table });
  const skipped = err.retryable && !context.committedAnything;
  return skipped
    ? { status: "skipped", event: "table_skipped", error: err }
    : { status: "failed", event: "table_failed", error: err };
}

/** The facts of one table's run, as every result reports them. */
export function tableResult(facts: {
  readonly table: string;
  readonly source: string;
  readonly key: string;
  readonly status: TableResult["status"];
  readonly rows?: number;
  readonly dropped?: number;
  readonly windows?: number;
  readonly commits?: number;
  readonly positionBefore?: CursorValue | null;
  readonly positionAfter?: CursorValue | null;
  readonly caughtUp?: boolean | undefined;
  readonly reload?: TableResult["reload"];
  readonly seconds?: number;
  readonly error?: SqlloadError | undefined;
}): TableResult {
  return {
    table: facts.table,
    source: facts.source,
    key: facts.key,
    status: facts.status,
    rows: facts.rows ?? 0,
    dropped: facts.dropped ?? 0,
    windows: facts.windows ?? 0,
    commits: facts.commits ?? 0,
    positionBefore: facts.positionBefore ?? null,
    positionAfter: facts.positionAfter ?? null,
    ...(facts.caughtUp !== undefined && facts.status === "loaded" ? { caughtUp: facts.caughtUp } : {}),
    ...(facts.reload && facts.status === "loaded" ? { reload: facts.reload } : {}),
    seconds: facts.seconds ?? 0,
    ...(facts.error ? { error: facts.error } : {}),
  };
}
