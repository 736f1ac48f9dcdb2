export { type EnqueueOptions, enqueueRun, type WaitCallbacks, waitForRun } from "./enqueue-run.js";
export { defaultTimings, openQueue, type QueueTimings } from "./open-queue.js";
export { projectHash } from "./project-hash.js";
export { type QueuedPass, type QueueStatus, queueStatus } from "./queue-status.js";
export { parseQueueUrl, QUEUE_SCHEMA, type QueueLocation } from "./queue-url.js";
export { QUEUE_NAME, type TableJob, type TableJobOutcome, tableJobId } from "./table-job.js";
export { type PassOutcome, type RunningWorker, startTableWorker, type TableWorkerOptions } from "./table-worker.js";
