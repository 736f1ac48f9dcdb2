import type { SourceConnection, SourceTableInfo } from "../connector/source.js";
import { formatTargetTable } from "../connector/table-ref.js";
import type { CursorKind } from "../cursor/cursor-kind.js";
import { parseCursor } from "../cursor/cursor-value.js";
import { errorCategory } from "../errors/codes.js";
import { isSqlloadError, SqlloadError } from "../errors/sqlload-error.js";
import { checkCursorRules } from "../plan/cursor-rules.js";
import type { PlanFlags } from "../plan/plan-table.js";
import { mergeTableSettings } from "./merge-settings.js";
import { sourceRequest } from "./prepare-table.js";
import type { ProjectSession, ProjectTable } from "./project-session.js";
import { resolveCursor } from "./resolve-cursor.js";

/** Rules that follow from the cursor's kind: broken by the project or the command line whatever the data holds. */
const CURSOR_RULE_CODES = new Set(["SL200", "SL201", "SL204", "SL205", "SL207", "SL210", "SL211"]);

/**
 * A config error (exit 2): the project file or a cursor-kind rule, found before any row is read,
 * as opposed to a failure of a system sqlload talks to or a state of the data (SL202, SL206).
 */
export function isConfigError(error: unknown): error is SqlloadError {
  if (!isSqlloadError(error)) return false;
  return errorCategory(error.code) === "config" || CURSOR_RULE_CODES.has(error.code);
}

/** A table's description as its source gave it to the checks, and when (`Date.now()`). */
export interface CheckedDescription {
  readonly info: SourceTableInfo;
  readonly at: number;
}

/**
 * How long a description the checks read stands in for the load's own: a table whose load starts
 * within it, before the run has committed anything, is not described again (a round trip or two
 * to the source, a folder listed again). One started later, or after another table's commit
 * (which may have changed what it reads: a source that is the target of an earlier table),
 * describes the table as it is then.
 */
export const CHECKED_DESCRIPTION_MS = 10_000;

/** The description the checks read of `table`, when it is recent enough for its load to use. */
export function recentDescription(
  checked: ReadonlyMap<ProjectTable, CheckedDescription> | undefined,
  table: ProjectTable,
  now = Date.now(),
): SourceTableInfo | undefined {
  const found = checked?.get(table);
  return found && now - found.at < CHECKED_DESCRIPTION_MS ? found.info : undefined;
}

/**
 * The checks that need each table's cursor kind, before any target opens or any row is read
 * (SPEC §2, §9): cursor-kind settings, `--start-cursor`/`--end-cursor`, and one cursor kind for a
 * range read. `connect: false` (`sqlload check`) asks only sources that connect to nothing (tables
 * declared in code); otherwise every source describes its tables, and a source that cannot be
 * reached is left for its table's load to report. Throws the first config error; returns the
 * descriptions read, which a load starting at once reuses (`recentDescription`).
 */
export async function checkTables(
  session: ProjectSession,
  tables: readonly ProjectTable[],
  flags: PlanFlags,
  options: { readonly connect: boolean },
): Promise<ReadonlyMap<ProjectTable, CheckedDescription>> {
  const ranged = flags.startCursor !== undefined || flags.endCursor !== undefined;
  const kinds = new Map<CursorKind | "none", string[]>();
  const described = new Map<ProjectTable, CheckedDescription>();
  for (const table of tables) {
    const kind = await tableKind(session, table, options.connect, described);
    if (kind === undefined) continue;
    const name = formatTargetTable(table.config.target);
    if (ranged && kind === "none") {
      throw new SqlloadError("SL204", `table ${name} has no cursor column, so --start-cursor/--end-cursor cannot apply to it`, {
        table: name,
      });
    }
    kinds.set(kind, [...(kinds.get(kind) ?? []), name]);
  }
  if (ranged && kinds.size > 1) {
    const listing = [...kinds].map(([kind, names]) => `${kind}: ${names.join(", ")}`).join("; ");
    throw new SqlloadError(
      "SL204",
      `--start-cursor/--end-cursor need one cursor kind, but the selected tables have ${kinds.size} (${listing})`,
    );
  }
  const [kind] = kinds.keys();
  if (kind && kind !== "none") {
    if (flags.startCursor !== undefined) parseCursor(kind, flags.startCursor, "--start-cursor");
    if (flags.endCursor !== undefined) parseCursor(kind, flags.endCursor, "--end-cursor");
  }
  return described;
}

/** The table's cursor kind ("none" without a cursor column) once its rules are checked; undefined when unknown yet. */
async function tableKind(
  session: ProjectSession,
  table: ProjectTable,
  connect: boolean,
  described: Map<ProjectTable, CheckedDescription>,
): Promise<CursorKind | "none" | undefined> {
  const { config } = table;
  const label = `${config.source}.${config.ref.key}`;
  let source: SourceConnection | undefined;
  try {
    source = connect ? await session.source(table.source) : await session.sourceIfOffering(table.source);
  } catch (error) {
    // A source that connects to nothing has no outage to wait out: any failure is the project's.
    if (isConfigError(error) || !connect) throw error;
    return undefined;
  }
  if (!source) return config.settings.cursorColumn ? undefined : "none";
  let info: SourceTableInfo;
  try {
    info = await source.describeTable(sourceRequest(config));
    described.set(table, { info, at: Date.now() });
  } catch (error) {
    // A source that connects to nothing has no outage to wait out: any failure is the project's.
    if (isConfigError(error) || !connect) throw error;
    return undefined;
  }
  const settings = mergeTableSettings(config.settings, info.settings, config.where, label);
  if (!settings.cursorColumn) return "none";
  const cursor = resolveCursor(settings, info, undefined, formatTargetTable(config.target), false);
  if (!cursor) return undefined;
  checkCursorRules({ table: label, settings, column: cursor.column, kind: cursor.kind, where: config.where });
  return cursor.kind;
}
