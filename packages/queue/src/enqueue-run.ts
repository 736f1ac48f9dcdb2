import type { TableQueue } from "./open-queue.js";
import { type TableJob, type TableJobOutcome, tableJobId } from "./table-job.js";

export interface EnqueueOptions {
  /** How many times a pass that failed for a retryable reason is tried again (default 2). */
  readonly retries: number;
}

/** Enqueues the first pass of every table; returns each table's job id. */
export async function enqueueRun(
  queue: TableQueue,
  jobs: readonly TableJob[],
  options: EnqueueOptions,
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const job of jobs) {
    const id = tableJobId(job.runId, job.table, job.pass);
    await queue.add(job.table, job, {
      jobId: id,
      attempts: options.retries + 1,
      backoff: { type: "exponential", delay: 2_000 },
      // Kept for a week: `sqlload status` shows them, and a chained pass added twice stays one job.
      removeOnComplete: { age: 7 * 86_400 },
      removeOnFail: { age: 7 * 86_400 },
    });
    ids.set(job.table, id);
  }
  return ids;
}

export interface WaitCallbacks {
  /** A line the worker logged for the table's pass (a JSON event), in order. */
  onLog(table: string, line: string): void;
  /** A pass finished: its result, and whether the table is done (no further pass chained). */
  onPass(table: string, result: Record<string, unknown>, final: boolean): void;
  readonly signal?: AbortSignal | undefined;
  readonly pollMs?: number | undefined;
}

/**
 * Follows every table's chain of passes until each has a final result: a pass that chained no
 * next one, or one that failed for good. Returns the final results in the order given.
 */
export async function waitForRun(
  queue: TableQueue,
  firstJobs: ReadonlyMap<string, string>,
  callbacks: WaitCallbacks,
): Promise<Map<string, Record<string, unknown>>> {
  const current = new Map(firstJobs);
  const logOffsets = new Map<string, number>();
  const finals = new Map<string, Record<string, unknown>>();
  const pollMs = callbacks.pollMs ?? 250;
  while (current.size > 0 && !callbacks.signal?.aborted) {
    for (const [table, id] of [...current]) {
      const offset = logOffsets.get(id) ?? 0;
      const { logs } = await queue.getJobLogs(id, offset, -1, true);
      for (const line of logs) callbacks.onLog(table, line);
      logOffsets.set(id, offset + logs.length);
      // The state first, then the job: a job read while active and found completed a moment later has no return value yet.
      const state = await queue.getJobState(id);
      if (state !== "completed" && state !== "failed") continue; // waiting, active, delayed, or not added yet
      const job = await queue.getJob(id);
      if (!job) continue;
      if (state === "completed") {
        const outcome = job.returnvalue as TableJobOutcome | null;
        if (!outcome) continue;
        const final = !outcome.next;
        callbacks.onPass(table, outcome.result, final);
        if (outcome.next) current.set(table, outcome.next);
        else {
          finals.set(table, outcome.result);
          current.delete(table);
        }
      } else if (state === "failed") {
        const progress = job.progress as { result?: Record<string, unknown>; refused?: Record<string, unknown> } | undefined;
        const result = progress?.result ?? failedResult(table, job.data, progress?.refused, job.failedReason);
        callbacks.onPass(table, result, true);
        finals.set(table, result);
        current.delete(table);
      }
    }
    if (current.size > 0) await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return finals;
}

/** The result of a pass that never ran to a result of its own (refused by a worker, or lost). */
function failedResult(
  table: string,
  data: TableJob,
  refused: Record<string, unknown> | undefined,
  reason: string | undefined,
): Record<string, unknown> {
  return {
    table,
    source: data.selector.split("__")[0] ?? "",
    key: data.selector,
    status: "failed",
    rows: 0,
    dropped: 0,
    windows: 0,
    positionBefore: null,
    positionAfter: null,
    seconds: 0,
    error: refused ?? { code: "SL900", message: reason ?? "the job failed without a result", retryable: false },
  };
}
