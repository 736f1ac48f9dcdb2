import type { TableSettings } from "../../config/table-settings.js";
import type { RunEvent, TableResult } from "../../events/run-event.js";
import type { PlanFlags } from "../../plan/plan-table.js";
import { prepareTable } from "../prepare-table.js";
import type { ProjectTable } from "../project-session.js";
import { runPrepared } from "../run-table.js";
import type { MemorySource } from "./memory-source.js";
import type { MemoryTarget } from "./memory-target.js";

export const TARGET_REF = { schema: "raw", name: "app__t" } as const;

export interface MemoryRun {
  readonly result: TableResult;
  readonly events: RunEvent[];
  /** The events of one type, narrowed. */
  of<T extends RunEvent["type"]>(type: T): Extract<RunEvent, { type: T }>[];
}

/** The one table of `source` as the project would list it, landing in `TARGET_REF`. */
export function memoryTable(source: MemorySource, settings: TableSettings): ProjectTable {
  const request = source.request();
  return {
    source: "app",
    name: TARGET_REF.name,
    config: {
      source: "app",
      ref: request.table,
      target: TARGET_REF,
      settings: { cursorColumn: request.cursorColumn, ...settings },
      options: {},
      where: () => ({ file: "sqlload.toml" }),
    },
  };
}

/** Plans and runs the one table of `source` into `target`, as `load` would: one run of one table. */
export async function runMemoryTable(
  source: MemorySource,
  target: MemoryTarget,
  settings: TableSettings,
  options: { flags?: PlanFlags; signal?: AbortSignal; chunkBytes?: number; runId?: string; now?: Date } = {},
): Promise<MemoryRun> {
  const table = memoryTable(source, settings);
  const now = options.now ?? new Date("2026-10-15T12:00:00Z");
  const runId = options.runId ?? "run-1";
  const prepared = await prepareTable({ table, source, target, flags: options.flags ?? {}, now, runId });
  const events: RunEvent[] = [];
  const result = await runPrepared(prepared, {
    target,
    runId,
    emit: (event) => events.push(event),
    signal: options.signal ?? new AbortController().signal,
    chunkBytes: options.chunkBytes,
  });
  const of = <T extends RunEvent["type"]>(type: T) => events.filter((e) => e.type === type) as Extract<RunEvent, { type: T }>[];
  return { result, events, of };
}
