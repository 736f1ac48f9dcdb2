import { crashPoint, SqlloadError } from "@sqlload/core";
import { type Job, UnrecoverableError } from "bullmq";
import { defaultTimings, openQueue, openWorker, type QueueTimings } from "./open-queue.js";
import type { QueueLocation } from "./queue-url.js";
import { type TableJob, type TableJobOutcome, tableJobId } from "./table-job.js";

/** What running one pass gave: the table's result (as run_results.json has it) and whether a retry may help. */
export interface PassOutcome {
  readonly result: Record<string, unknown>;
  readonly status: "loaded" | "failed" | "skipped";
  readonly retryable: boolean;
  readonly message?: string | undefined;
}

export interface TableWorkerOptions {
  readonly location: QueueLocation;
  readonly concurrency: number;
  /** This worker's project; a job made from another version is refused. */
  readonly projectHash: string;
  readonly timings?: QueueTimings | undefined;
  /** Runs one pass of one table, exactly as `sqlload load` would; `log` appends a line to the job's log. */
  runPass(job: TableJob, context: { readonly signal: AbortSignal; log(line: string): Promise<void> }): Promise<PassOutcome>;
  /** Health and lifecycle lines. */
  say(line: string): void;
  /** How often to print a health line (default a minute). */
  readonly healthEveryMs?: number | undefined;
}

export interface RunningWorker {
  /** Stops taking jobs and waits for the passes in flight to commit (`abort` rolls them back instead). */
  stop(options?: { readonly abort?: boolean }): Promise<void>;
  readonly closed: Promise<void>;
}

/**
 * A long-running worker: takes table passes from the queue and runs them. BullMQ delivers a job
 * at least once (a worker killed after its commit and before its acknowledgement runs it again),
 * so nothing here may assume a pass runs once: the target's data and run log say where a table
 * stands, and a pass that runs again continues from there.
 */
export async function startTableWorker(options: TableWorkerOptions): Promise<RunningWorker> {
  const timings = options.timings ?? defaultTimings;
  const queue = openQueue(options.location);
  const running = new Set<AbortController>();
  let done = 0;
  let failed = 0;

  const processor = async (job: Job<TableJob, TableJobOutcome>): Promise<TableJobOutcome> => {
    const data = job.data;
    if (data.projectHash !== options.projectHash) {
      const error = new SqlloadError(
        "SL601",
        `job ${job.id} (${data.table}) was made from project version ${data.projectHash}; this worker runs ${options.projectHash}`,
      );
      await job.updateProgress({ refused: error.toJSON() });
      throw new UnrecoverableError(`${error.code}: ${error.message}`);
    }
    const controller = new AbortController();
    running.add(controller);
    try {
      options.say(`took ${data.table} pass ${data.pass} (run ${data.runId}, attempt ${job.attemptsMade + 1})`);
      const outcome = await options.runPass(data, {
        signal: controller.signal,
        log: async (line) => {
          await job.log(line);
        },
      });
      crashPoint("ack");
      if (outcome.status !== "loaded") {
        // The result is what the run reports; the failure is what BullMQ retries (or gives up on).
        await job.updateProgress({ result: outcome.result });
        failed++;
        const message = `${data.table}: ${outcome.message ?? outcome.status}`;
        if (outcome.retryable && !controller.signal.aborted) throw new Error(message);
        throw new UnrecoverableError(message);
      }
      done++;
      const next =
        data.untilCaughtUp && outcome.result.caughtUp === false && data.pass < data.maxRuns
          ? await chainNextPass(job, data)
          : undefined;
      return { result: outcome.result, ...(next ? { next } : {}) };
    } finally {
      running.delete(controller);
    }
  };

  /** Adds pass k+1 before pass k is acknowledged: a worker dying in between adds it again, which adds nothing. */
  const chainNextPass = async (job: Job<TableJob, TableJobOutcome>, data: TableJob): Promise<string> => {
    const id = tableJobId(data.runId, data.table, data.pass + 1);
    await queue.add(
      data.table,
      { ...data, pass: data.pass + 1, flags: { ...data.flags, reload: false, restart: false } },
      { ...jobDefaults(job), jobId: id },
    );
    return id;
  };

  const worker = openWorker(options.location, processor, {
    concurrency: options.concurrency,
    lockDuration: timings.lockDuration,
    stalledInterval: timings.stalledInterval,
    maxStalledCount: 3,
    autorun: false,
  });
  worker.on("error", (error) => options.say(`queue error: ${error.message}`));
  const health = setInterval(() => {
    options.say(`healthy: ${running.size} running, ${done} passes done, ${failed} failed`);
  }, options.healthEveryMs ?? 60_000);
  health.unref();
  const closed = worker.run().finally(() => clearInterval(health));
  await worker.waitUntilReady();
  options.say(`worker ready on ${options.location.redacted}, concurrency ${options.concurrency}`);
  return {
    closed,
    async stop(stopOptions = {}) {
      if (stopOptions.abort) for (const controller of running) controller.abort();
      await worker.close();
      await queue.close();
      await closed.catch(() => undefined);
    },
  };
}

/** A chained pass keeps the retry policy of the pass before it. */
function jobDefaults(job: Job<TableJob, TableJobOutcome>) {
  return {
    attempts: job.opts.attempts ?? 1,
    ...(job.opts.backoff ? { backoff: job.opts.backoff } : {}),
    removeOnComplete: job.opts.removeOnComplete ?? { age: 7 * 86_400 },
    removeOnFail: job.opts.removeOnFail ?? { age: 7 * 86_400 },
  };
}
