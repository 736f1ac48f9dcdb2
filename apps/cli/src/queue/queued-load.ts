import { randomUUID } from "node:crypto";
import {
  cursorFromJSON,
  type EmitEvent,
  formatTargetTable,
  type LoadResult,
  type ProjectConfig,
  type ProjectTable,
  resultFromJSON,
  type TableResult,
} from "@sqlload/core";
import { enqueueRun, openQueue, parseQueueUrl, type TableJob, waitForRun } from "@sqlload/queue";
import { projectVersion } from "./project-version.js";

export interface QueuedLoadOptions {
  readonly url: string;
  readonly tables: readonly ProjectTable[];
  readonly config: ProjectConfig;
  readonly flags: {
    startCursor?: string | undefined;
    endCursor?: string | undefined;
    maxWindows?: number | undefined;
    reload: boolean;
    restart?: boolean | undefined;
  };
  readonly untilCaughtUp: boolean;
  readonly maxRuns: number;
  readonly retries: number;
  readonly detach: boolean;
  /** Receives the run's events as a local load would emit them (JSON output prints them as lines). */
  readonly emit: EmitEvent;
  /** Receives the worker's JSON event lines as they were logged (for `--log-format json`). */
  readonly forward?: ((line: string) => void) | undefined;
  readonly signal: AbortSignal;
}

export interface QueuedLoad {
  readonly runId: string;
  /** Undefined with `detach`: the run goes on without us. */
  readonly result?: LoadResult | undefined;
  readonly passes: number;
  readonly totalRows: number;
}

/**
 * `sqlload load --queue URL`: one job per selected table, passes chained by the workers; waits and
 * reports each table as a local load would, from the results the workers leave in their jobs.
 */
export async function queuedLoad(options: QueuedLoadOptions): Promise<QueuedLoad> {
  const location = parseQueueUrl(options.url);
  const runId = randomUUID();
  const startedAt = new Date();
  const version = projectVersion(options.config);
  const jobs: TableJob[] = options.tables.map((table) => ({
    runId,
    table: formatTargetTable(table.config.target),
    selector: table.name,
    pass: 1,
    untilCaughtUp: options.untilCaughtUp,
    maxRuns: options.maxRuns,
    projectHash: version,
    flags: options.flags,
    enqueuedAt: startedAt.toISOString(),
  }));
  const queue = openQueue(location);
  try {
    const ids = await enqueueRun(queue, jobs, { retries: options.retries });
    if (options.detach) return { runId, passes: 0, totalRows: 0 };
    options.emit({ type: "run_started", runId, at: startedAt.toISOString(), tables: jobs.map((j) => j.table) });
    let passes = 0;
    let totalRows = 0;
    const perTable = new Map<string, number>();
    const finals = await waitForRun(queue, ids, {
      signal: options.signal,
      onLog: (_table, line) => {
        if (options.forward) return options.forward(line);
        const event = JSON.parse(line) as Record<string, unknown>;
        const decoded = decodeEvent(event);
        if (decoded) options.emit(decoded);
      },
      onPass: (table, result) => {
        const n = (perTable.get(table) ?? 0) + 1;
        perTable.set(table, n);
        passes = Math.max(passes, n);
        totalRows += Number(result.rows ?? 0);
      },
    });
    const results: TableResult[] = jobs.map((job) => resultFromJSON(finals.get(job.table) ?? interrupted(job)));
    const seconds = (Date.now() - startedAt.getTime()) / 1000;
    options.emit({ type: "run_completed", runId, results, seconds });
    return { runId, passes, totalRows, result: { runId, startedAt: startedAt.toISOString(), results, seconds } };
  } finally {
    await queue.close();
  }
}

/** The events a text renderer shows, rebuilt from a worker's JSON line (others are only forwarded as JSON). */
function decodeEvent(json: Record<string, unknown>): Parameters<EmitEvent>[0] | undefined {
  switch (json.event) {
    case "table_completed":
    case "table_failed":
    case "table_skipped":
      return { type: json.event, result: resultFromJSON(json) };
    case "window_committed": {
      const range = (json.range ?? {}) as Record<string, unknown>;
      return {
        type: "window_committed",
        table: String(json.table),
        window: (json.window as { index: number; count: number } | null) ?? undefined,
        range: {
          from: cursorFromJSON(range.from) ?? undefined,
          fromInclusive: range.fromInclusive !== false,
          to: cursorFromJSON(range.to) ?? undefined,
        },
        rows: Number(json.rows ?? 0),
        totalRows: Number(json.totalRows ?? 0),
        position: cursorFromJSON(json.position) ?? null,
      };
    }
    case "table_warning":
      return { type: "table_warning", table: String(json.table), message: String(json.message) };
    case "table_reconciled":
      return { type: "table_reconciled", table: String(json.table), note: String(json.note) };
    default:
      return undefined;
  }
}

/** A table whose chain we stopped following (Ctrl-C): its passes go on in the workers. */
function interrupted(job: TableJob): Record<string, unknown> {
  return {
    table: job.table,
    source: "",
    key: job.selector,
    status: "skipped",
    rows: 0,
    seconds: 0,
    error: {
      code: "SL307",
      message: `stopped waiting for ${job.table}; its queued passes go on (see sqlload status)`,
      retryable: false,
    },
  };
}
