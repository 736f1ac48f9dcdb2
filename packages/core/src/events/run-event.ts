import type { CursorRange } from "../connector/source.js";
import type { CursorValue } from "../cursor/cursor-value.js";
import type { SqlloadError } from "../errors/sqlload-error.js";
import type { TablePlan } from "../plan/plan-table.js";

/** Bumped when a field of an event changes meaning or disappears (adding fields does not bump it). */
export const EVENT_SCHEMA_VERSION = 1;

export type TableStatus = "loaded" | "failed" | "skipped";

/** What one table did in one run: the facts of `table_completed`/`table_failed` and of run_results.json. */
export interface TableResult {
  /** The target table, `raw.app__orders`. */
  readonly table: string;
  readonly source: string;
  readonly key: string;
  readonly status: TableStatus;
  readonly rows: number;
  /** Rows a source yielded outside the read range, dropped by the engine. */
  readonly dropped: number;
  readonly windows: number;
  /** Commits this run made (a failed table keeps them); absent where the table never ran. */
  readonly commits?: number | undefined;
  readonly positionBefore: CursorValue | null;
  readonly positionAfter: CursorValue | null;
  /** Present for tables with an end (`cursor_end`, `--end-cursor`) or a per-run window bound. */
  readonly caughtUp?: boolean | undefined;
  /**
   * A resumable reload's state after this run: `building` (the old table is still live; the next
   * run continues the build) or `swapped` (this run swapped the new table in).
   */
  readonly reload?: "building" | "swapped" | undefined;
  readonly seconds: number;
  readonly error?: SqlloadError | undefined;
}

/** Everything the engine reports; renderers (tree, progress, lines, JSON) subscribe to these. */
export type RunEvent =
  | { readonly type: "run_started"; readonly runId: string; readonly at: string; readonly tables: readonly string[] }
  | { readonly type: "table_planned"; readonly table: string; readonly plan: TablePlan }
  | { readonly type: "table_started"; readonly table: string; readonly plan: TablePlan }
  | {
      readonly type: "rows_read";
      readonly table: string;
      /** Rows written so far in this run. */
      readonly rows: number;
      readonly windowsDone: number;
      readonly windowsTotal?: number | undefined;
    }
  | {
      readonly type: "window_committed";
      readonly table: string;
      /** Index of the window among the table's windows; undefined for unwindowed commits. */
      readonly window?: { readonly index: number; readonly count: number } | undefined;
      readonly range: CursorRange;
      readonly rows: number;
      readonly totalRows: number;
      readonly position: CursorValue | null;
    }
  /** A staged target made the table's committed units visible (after each unit, or once at the end). */
  | { readonly type: "table_published"; readonly table: string; readonly rows: number; readonly position: CursorValue | null }
  /** The table waited for its `rate_limit` (rows read, or a TypeScript table's `ctx.pace()` requests). */
  | {
      readonly type: "rate_limited";
      readonly table: string;
      readonly limit: "rows_per_second" | "requests_per_second";
      readonly perSecond: number;
      readonly waitSeconds: number;
    }
  /** Something worth a person's attention that did not fail the table. */
  | { readonly type: "table_warning"; readonly table: string; readonly message: string }
  /** A logged table's log disagreed with its data; the data won and a reconcile record was appended. */
  | { readonly type: "table_reconciled"; readonly table: string; readonly note: string }
  | { readonly type: "table_completed"; readonly result: TableResult }
  | { readonly type: "table_failed"; readonly result: TableResult }
  | { readonly type: "table_skipped"; readonly result: TableResult }
  | {
      readonly type: "run_completed";
      readonly runId: string;
      readonly results: readonly TableResult[];
      readonly seconds: number;
    };

export type EmitEvent = (event: RunEvent) => void;
