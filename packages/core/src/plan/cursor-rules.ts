import { type SettingLocator, type TableSettings, windowSize } from "../config/table-settings.js";
import { type CursorKind, isTimeKind } from "../cursor/cursor-kind.js";
import { parseCursor } from "../cursor/cursor-value.js";
import { isSqlloadError, SqlloadError } from "../errors/sqlload-error.js";
import type { PlanFlags } from "./plan-table.js";
import { windowStep } from "./windows.js";

/**
 * The settings and flags that depend on the cursor's kind (SPEC §3, §5, §9): config errors,
 * checked as soon as the kind is known, whether a TypeScript table declares it (`sqlload check`,
 * before anything connects) or only the source's metadata can tell (first thing in planning).
 * `where` points an error at the setting's file and line when the table has one.
 */
export function checkCursorRules(input: {
  readonly table: string;
  readonly settings: TableSettings;
  readonly column: string;
  readonly kind: CursorKind;
  readonly flags?: PlanFlags | undefined;
  readonly where?: SettingLocator | undefined;
}): void {
  const { table, settings, column, kind, where } = input;
  const at = (key: string) => (where ? { location: where(key) } : {});
  const located = (key: string, check: () => unknown) => {
    try {
      check();
    } catch (error) {
      if (isSqlloadError(error) && where && !error.location) {
        throw new SqlloadError(error.code, error.message, { ...error, location: where(key), cause: error });
      }
      throw error;
    }
  };
  if (!isTimeKind(kind)) {
    for (const [key, setting] of [
      ["lookback", "lookback"],
      ["lookahead", "lookahead"],
    ] as const) {
      if (settings[key]) {
        throw new SqlloadError("SL205", `table ${table}: \`${setting}\` needs a date or timestamp cursor; ${column} is ${kind}`, {
          table,
          ...at(setting),
        });
      }
    }
    if (settings.cursorEnd === "now") {
      throw new SqlloadError(
        "SL207",
        `table ${table}: \`cursor_end = "now"\` needs a date or timestamp cursor; ${column} is ${kind}`,
        {
          table,
          ...at("cursor_end"),
        },
      );
    }
  }
  const size = windowSize(settings);
  if (size !== undefined) located("batch_size", () => windowStep(kind, size, table));
  if (settings.cursorStart !== undefined)
    located("cursor_start", () => parseCursor(kind, settings.cursorStart!, `cursor_start of ${table}`));
  if (settings.cursorEnd !== undefined && settings.cursorEnd !== "now") {
    located("cursor_end", () => parseCursor(kind, settings.cursorEnd!, `cursor_end of ${table}`));
  }
  const flags = input.flags;
  if (flags?.startCursor !== undefined) parseCursor(kind, flags.startCursor, "--start-cursor");
  if (flags?.endCursor !== undefined) parseCursor(kind, flags.endCursor, "--end-cursor");
}
