import { type ConnectorLookup, eventToJSON, loadProject, type ProjectConfig, ProjectSession, resultToJSON } from "@sqlload/core";
import type { PassOutcome, TableJob } from "@sqlload/queue";

/** Events a worker forwards into the job's log for the process that started the run to render. */
const FORWARDED = new Set([
  "window_committed",
  "table_published",
  "table_warning",
  "table_reconciled",
  "table_completed",
  "table_failed",
  "table_skipped",
]);

/**
 * Runs one pass of one table on this machine exactly as `sqlload load TABLE` would: the same
 * planning, lock, commits and run log; only the table and flags come from the job.
 */
export async function runPass(
  config: ProjectConfig,
  connectors: ConnectorLookup,
  job: TableJob,
  context: { readonly signal: AbortSignal; log(line: string): Promise<void> },
): Promise<PassOutcome> {
  const session = new ProjectSession(config, connectors);
  // One log line at a time, in order (BullMQ numbers a job's log lines as it appends them); a line
  // that cannot be written is only a display the starting process misses, never a failed pass.
  let logs = Promise.resolve();
  try {
    const tables = await session.select([job.selector]);
    const run = await loadProject(session, tables, {
      flags: {
        startCursor: job.flags.startCursor,
        endCursor: job.flags.endCursor,
        maxWindows: job.flags.maxWindows,
        reload: job.flags.reload,
        restart: job.flags.restart,
      },
      runId: job.runId,
      signal: context.signal,
      emit: (event) => {
        if (!FORWARDED.has(event.type)) return;
        const line = eventToJSON(event);
        if (line) logs = logs.then(() => context.log(JSON.stringify(line))).catch(() => undefined);
      },
    });
    await logs;
    const result = run.results[0];
    if (!result) throw new Error(`no result for ${job.table}`);
    return {
      result: resultToJSON(result),
      status: result.status,
      retryable: result.error?.retryable === true,
      message: result.error ? `${result.error.code} ${result.error.message}` : undefined,
    };
  } finally {
    await session.close();
  }
}
