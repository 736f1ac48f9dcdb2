/** The one BullMQ queue every sqlload worker takes table-runs from. */
export const QUEUE_NAME = "sqlload-table-runs";

/** What a worker needs to run one pass of one table exactly as `sqlload load` would. */
export interface TableJob {
  /** The run this pass belongs to: the run log records it with every commit. */
  readonly runId: string;
  /** The target table, `raw.app__orders`. */
  readonly table: string;
  /** How `sqlload load` selects it: `app__orders`. */
  readonly selector: string;
  /** 1 for the first pass; `--until-caught-up` chains pass k+1 once pass k committed. */
  readonly pass: number;
  readonly untilCaughtUp: boolean;
  readonly maxRuns: number;
  /** The project's content hash: a worker with another version of the project refuses the job. */
  readonly projectHash: string;
  readonly flags: {
    readonly startCursor?: string | undefined;
    readonly endCursor?: string | undefined;
    readonly maxWindows?: number | undefined;
    /** `--reload`: the first pass only. */
    readonly reload: boolean;
    /** `--reload --restart`: the first pass only. */
    readonly restart?: boolean | undefined;
  };
  /** ISO time the run was planned; a pass's `cursor_end = "now"` is its own start. */
  readonly enqueuedAt: string;
}

/**
 * One job per table and pass. BullMQ keeps one job per id, so adding a pass again (a worker that
 * died after adding it, before its acknowledgement) adds nothing. Ids may not hold `:`.
 */
export function tableJobId(runId: string, table: string, pass: number): string {
  return `${runId}.${table}.${pass}`.replaceAll(":", "_");
}

/** What a finished pass leaves in its job: the table's result as run_results.json has it. */
export interface TableJobOutcome {
  readonly result: Record<string, unknown>;
  /** The id of the next pass's job, when this pass chained one. */
  readonly next?: string | undefined;
}
