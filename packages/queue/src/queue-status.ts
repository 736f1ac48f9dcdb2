import type { JobType } from "bullmq";
import type { TableQueue } from "./open-queue.js";
import type { TableJobOutcome } from "./table-job.js";

export interface QueuedPass {
  readonly id: string;
  readonly runId: string;
  readonly table: string;
  readonly pass: number;
  readonly state: string;
  readonly attempts: number;
  readonly rows?: number | undefined;
  readonly error?: string | undefined;
}

export interface QueueStatus {
  readonly counts: Readonly<Record<string, number>>;
  readonly passes: readonly QueuedPass[];
}

const STATES: JobType[] = ["active", "waiting", "delayed", "prioritized", "waiting-children", "completed", "failed"];

/** What is queued, running, done and failed; with `runId`, only that run's passes. */
export async function queueStatus(queue: TableQueue, runId?: string, limit = 200): Promise<QueueStatus> {
  const counts = await queue.getJobCounts(...STATES);
  const passes: QueuedPass[] = [];
  for (const state of STATES) {
    for (const job of await queue.getJobs([state], 0, limit - 1, false)) {
      if (!job?.id || (runId && job.data.runId !== runId)) continue;
      const outcome = job.returnvalue as TableJobOutcome | undefined;
      passes.push({
        id: job.id,
        runId: job.data.runId,
        table: job.data.table,
        pass: job.data.pass,
        state,
        attempts: job.attemptsMade,
        ...(outcome?.result ? { rows: Number(outcome.result.rows ?? 0) } : {}),
        ...(job.failedReason ? { error: job.failedReason } : {}),
      });
    }
  }
  return { counts, passes };
}
