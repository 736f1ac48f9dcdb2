import { createPostgresBackend, type Processor, Queue, Worker, type WorkerOptions } from "bullmq";
import { QUEUE_SCHEMA, type QueueLocation } from "./queue-url.js";
import { QUEUE_NAME, type TableJob, type TableJobOutcome } from "./table-job.js";

/**
 * How long a worker holds a job before another may take it over, and how often stalled jobs are
 * looked for. A killed worker's pass is picked up again within a few seconds; a live worker renews
 * its lock every lockDuration / 2.
 */
export interface QueueTimings {
  readonly lockDuration: number;
  readonly stalledInterval: number;
}

export const defaultTimings: QueueTimings = { lockDuration: 10_000, stalledInterval: 5_000 };

function redisOptions(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    ...(u.protocol === "rediss:" ? { tls: {} } : {}),
    // BullMQ's blocking connections must never give up on a command.
    maxRetriesPerRequest: null,
  };
}

function postgresOptions(url: string) {
  return { connectionString: url, schema: QUEUE_SCHEMA, migrate: true };
}

/** The queue of table passes. BullMQ's generics cannot express "either backend", so both are seen through this type. */
export type TableQueue = Queue<TableJob, TableJobOutcome>;
export type TableWorker = Worker<TableJob, TableJobOutcome>;

export function openQueue(location: QueueLocation): TableQueue {
  const queue =
    location.kind === "postgres"
      ? new Queue(QUEUE_NAME, { connection: postgresOptions(location.url) }, createPostgresBackend)
      : new Queue(QUEUE_NAME, { connection: redisOptions(location.url) });
  return queue as unknown as TableQueue;
}

export function openWorker(
  location: QueueLocation,
  processor: Processor<TableJob, TableJobOutcome>,
  options: Omit<WorkerOptions, "connection">,
): TableWorker {
  const run = processor as Processor;
  const worker =
    location.kind === "postgres"
      ? new Worker(QUEUE_NAME, run, { ...options, connection: postgresOptions(location.url) }, createPostgresBackend)
      : new Worker(QUEUE_NAME, run, { ...options, connection: redisOptions(location.url) });
  return worker as unknown as TableWorker;
}
