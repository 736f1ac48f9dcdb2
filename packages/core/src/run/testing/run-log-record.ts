import type { RunLogRecord } from "../../state/run-log.js";

/** A record for the run-log rules' tests: a run of `raw.src__t` that loaded one row, unless `over` says otherwise. */
export const runLogRecord = (over: Partial<RunLogRecord>): RunLogRecord => ({
  runId: "r1",
  table: "raw.src__t",
  at: "2026-11-29T00:00:00.000Z",
  event: "run",
  rows: 1,
  ...over,
});
