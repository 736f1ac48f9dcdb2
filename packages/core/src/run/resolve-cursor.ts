import type { TableSettings } from "../config/table-settings.js";
import type { Column } from "../connector/logical-types.js";
import type { SourceTableInfo } from "../connector/source.js";
import { type CursorKind, cursorKindOf } from "../cursor/cursor-kind.js";
import { parseDateDays, parseTimestampMicros } from "../cursor/cursor-value.js";
import { SqlloadError } from "../errors/sqlload-error.js";

export interface ResolvedCursor {
  readonly column: string;
  readonly kind: CursorKind;
  readonly nullable: boolean;
}

/**
 * The cursor column and its kind: from the source's metadata or declared columns, else the
 * target's columns, else (`guess`) the form of `cursor_start`: a table function without declared
 * columns is told by its first rows. Undefined when nothing can tell yet.
 */
export function resolveCursor(
  settings: TableSettings,
  info: SourceTableInfo,
  targetColumns: readonly Column[] | undefined,
  table: string,
  guess = true,
): ResolvedCursor | undefined {
  const column = settings.cursorColumn as string;
  const columns = info.columns ?? targetColumns;
  const found = columns?.find((c) => c.name === column);
  if (columns && !found) {
    throw new SqlloadError(
      "SL200",
      `table ${table}: cursor column "${column}" is not among its columns (${columns.map((c) => c.name).join(", ")})`,
      { table },
    );
  }
  let kind: CursorKind | undefined = info.cursorKind ?? (found ? cursorKindOf(found.type) : undefined);
  if (found && !kind) {
    throw new SqlloadError(
      "SL201",
      `table ${table}: cursor column "${column}" is ${found.type.kind}; a cursor must be an integer, date, timestamp or text column`,
      { table },
    );
  }
  if (guess) kind ??= guessKind(settings.cursorStart ?? settings.cursorEnd);
  if (!kind) return undefined;
  return { column, kind, nullable: info.cursorNullable ?? found?.nullable ?? true };
}

function guessKind(text: string | undefined): CursorKind | undefined {
  if (text === undefined || text === "now") return undefined;
  if (/^-?\d+$/.test(text)) return "integer";
  if (parseDateDays(text) !== undefined) return "date";
  if (parseTimestampMicros(text) !== undefined) return "timestamp";
  return "text";
}
