import { type CursorValue, cursorFromJSON, cursorToJSON } from "../cursor/cursor-value.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import type { Json } from "./json.js";

/**
 * The run-log format this version reads. Newer records block only their own table. Records of a
 * reload's build are written as version 2, so that a sqlload that knows no resumable reloads
 * refuses them rather than taking the build's position for the live table's; the others stay 1.
 */
export const RUN_LOG_FORMAT_VERSION = 2;

/** What a record says about a resumable reload (SPEC §13). */
export interface ReloadTag {
  /** The reload: the id of the run that started it. */
  readonly id: string;
  /**
   * `start`: the build was begun (an earlier one dropped); `build`: a window of the build
   * committed, its end and the build's maximum in the record; `swap`: the build was swapped in,
   * ending the reload.
   */
  readonly phase: "start" | "build" | "swap";
}

const PHASES: readonly ReloadTag["phase"][] = ["start", "build", "swap"];

/** The table a target keeps its run log in (`_sqlload_runs` in the table's schema). */
export const RUN_LOG_TABLE = "_sqlload_runs";

/**
 * A run-log row as a target stores it: the envelope in columns, the record's body as JSON text,
 * so targets never need to understand the record and older readers can refuse newer ones.
 */
export interface RunLogRow {
  readonly runId: string;
  /** The target table the record belongs to, as `schema.name`. */
  readonly table: string;
  /** ISO 8601 UTC. */
  readonly at: string;
  readonly formatVersion: number;
  readonly body: string;
}

/**
 * `run`: a commit of a load. `reconcile`, `reset`: corrections of logged state. `rollback`: the next
 * run continues from the position an earlier run left (`sqlload rollback`).
 */
export type RunLogEvent = "run" | "reconcile" | "reset" | "rollback";

const EVENTS: readonly RunLogEvent[] = ["run", "reconcile", "reset", "rollback"];

/** One record: what a commit left behind. */
export interface RunLogRecord {
  readonly runId: string;
  readonly table: string;
  readonly at: string;
  readonly event: RunLogEvent;
  /** Logged state after the commit; undefined when the table keeps none, null when cleared. */
  readonly state?: Json | undefined;
  /** The target's maximum of the cursor column after the commit. */
  readonly cursor?: CursorValue | null | undefined;
  /** The end of the window this commit finished (windowed tables). */
  readonly windowEnd?: CursorValue | null | undefined;
  readonly rows: number;
  readonly note?: string | undefined;
  /** A rollback: the run whose position the next run continues from. */
  readonly rollbackTo?: string | undefined;
  /** A rollback: where that run left the data's cursor (the next read starts there unless windowed). */
  readonly resumeFrom?: CursorValue | null | undefined;
  /** A commit of a resumable reload; its `cursor` and `windowEnd` are the build table's while it is built. */
  readonly reload?: ReloadTag | undefined;
  /**
   * A logged table's commit by a run that started from its logged position, which nothing
   * unreadable blocked then: no record before this one blocks the table (state/logged-state.ts).
   */
  readonly unblocked?: true | undefined;
}

export function encodeRunLogRecord(record: RunLogRecord): RunLogRow {
  const body = {
    event: record.event,
    ...(record.state !== undefined ? { state: record.state } : {}),
    cursor: cursorToJSON(record.cursor),
    windowEnd: cursorToJSON(record.windowEnd),
    rows: record.rows,
    ...(record.note ? { note: record.note } : {}),
    ...(record.rollbackTo !== undefined ? { rollbackTo: record.rollbackTo, resumeFrom: cursorToJSON(record.resumeFrom) } : {}),
    ...(record.reload ? { reload: { id: record.reload.id, phase: record.reload.phase } } : {}),
    ...(record.unblocked ? { unblocked: true } : {}),
  };
  return {
    runId: record.runId,
    table: record.table,
    at: record.at,
    formatVersion: record.reload && record.reload.phase !== "swap" ? 2 : 1,
    body: JSON.stringify(body),
  };
}

/** Decodes a row; throws SL500 naming the record when it is corrupt or of a newer format. */
export function decodeRunLogRow(row: RunLogRow, index: number): RunLogRecord {
  const name = `run-log record #${index + 1} of ${row.table} (run ${row.runId}, ${row.at})`;
  if (row.formatVersion > RUN_LOG_FORMAT_VERSION) {
    throw new SqlloadError(
      "SL500",
      `${name} has format version ${row.formatVersion}, newer than this sqlload reads (${RUN_LOG_FORMAT_VERSION})`,
      { table: row.table, hint: "Upgrade sqlload, or start a new position after it with `sqlload logged-state reset`." },
    );
  }
  try {
    const body = JSON.parse(row.body) as Record<string, unknown>;
    const event = body.event;
    if (!EVENTS.includes(event as RunLogEvent)) throw new Error(`unknown event ${String(event)}`);
    if (typeof body.rows !== "number") throw new Error("rows is not a number");
    return {
      runId: row.runId,
      table: row.table,
      at: row.at,
      event: event as RunLogEvent,
      state: "state" in body ? (body.state as Json) : undefined,
      cursor: cursorFromJSON(body.cursor),
      windowEnd: cursorFromJSON(body.windowEnd),
      rows: body.rows,
      note: typeof body.note === "string" ? body.note : undefined,
      ...(typeof body.rollbackTo === "string"
        ? { rollbackTo: body.rollbackTo, resumeFrom: cursorFromJSON(body.resumeFrom) }
        : {}),
      ...(body.reload !== undefined ? { reload: reloadTag(body.reload) } : {}),
      ...(body.unblocked === true ? { unblocked: true as const } : {}),
    };
  } catch (cause) {
    throw new SqlloadError("SL500", `${name} cannot be read: ${(cause as Error).message}`, { table: row.table, cause });
  }
}

function reloadTag(value: unknown): ReloadTag {
  const tag = value as Partial<ReloadTag> | null;
  if (!tag || typeof tag.id !== "string" || !PHASES.includes(tag.phase as ReloadTag["phase"])) {
    throw new Error("reload is not an id and a phase");
  }
  return { id: tag.id, phase: tag.phase as ReloadTag["phase"] };
}
