import { randomUUID } from "node:crypto";
import {
  appendRunLogRecord,
  type CursorValue,
  cursorKindOf,
  formatCount,
  formatCursor,
  formatTargetTable,
  type HistoryEntry,
  type Json,
  type LoggedPosition,
  logDisagreesWithData,
  loggedPosition,
  type ProjectSession,
  type ProjectTable,
  type TargetConnection,
} from "@sqlload/core";

/** A table's logged position, with the data's maximum of its cursor when it has one. */
export interface TableLog {
  readonly table: ProjectTable;
  readonly name: string;
  readonly position: LoggedPosition;
  readonly cursorColumn?: string | undefined;
  readonly dataMax: CursorValue | null;
}

/** Reads the run log of each selected table, and the target's maximum of its cursor. */
export async function readTableLogs(session: ProjectSession, tables: readonly ProjectTable[]): Promise<TableLog[]> {
  const target = await session.targetConnection();
  const out: TableLog[] = [];
  for (const table of tables) {
    const ref = table.config.target;
    const position = loggedPosition(await target.readRunLog(ref));
    const cursorColumn = (await session.tableSettings(table)).cursorColumn;
    let dataMax: CursorValue | null = null;
    if (cursorColumn) {
      const column = (await target.describeTable(ref))?.columns.find((c) => c.name === cursorColumn);
      const kind = column ? cursorKindOf(column.type) : undefined;
      dataMax = kind ? await target.maxCursor(ref, cursorColumn, kind) : null;
    }
    out.push({ table, name: formatTargetTable(ref), position, cursorColumn, dataMax });
  }
  return out;
}

/** Whether the logged cursor and the data disagree (only tables with a cursor and a log can). */
export function disagrees(log: TableLog): boolean {
  return logDisagreesWithData(log.position, log.dataMax, log.cursorColumn !== undefined);
}

export function stateText(state: Json | undefined): string {
  return state === undefined || state === null ? "none" : JSON.stringify(state);
}

export function cursorText(value: CursorValue | null): string {
  return value ? formatCursor(value) : "none";
}

/** One line of history: `#3 2026-10-12T16:00:00.000Z run run 1f2e… state "tok9" cursor … 1,000 rows`. */
export function historyLine(entry: HistoryEntry): string {
  if ("error" in entry)
    return `#${entry.index + 1} unreadable (run ${entry.row.runId}, ${entry.row.at}): ${entry.error.code} ${entry.error.message}`;
  const r = entry.record;
  const parts = [`#${entry.index + 1}`, r.at, r.event, `run ${r.runId}`];
  if (r.state !== undefined) parts.push(`state ${stateText(r.state)}`);
  if (r.cursor) parts.push(`cursor ${formatCursor(r.cursor)}`);
  if (r.windowEnd) parts.push(`window end ${formatCursor(r.windowEnd)}`);
  parts.push(`${formatCount(r.rows)} rows`);
  if (r.note) parts.push(`(${r.note})`);
  return parts.join(" ");
}

/** Appends a correction (reset or reconcile) to a table's run log; nothing is ever deleted. */
export function appendCorrection(
  target: TargetConnection,
  log: TableLog,
  correction: {
    readonly event: "reset" | "reconcile";
    readonly state: Json | null;
    readonly cursor: CursorValue | null;
    readonly note: string;
  },
): Promise<void> {
  return appendRunLogRecord(target, log.table.config.target, {
    runId: randomUUID(),
    table: log.name,
    at: new Date().toISOString(),
    event: correction.event,
    state: correction.state,
    cursor: correction.cursor,
    rows: 0,
    note: correction.note,
  });
}
