import { Args, Flags } from "@oclif/core";
import { formatCount, runHistory } from "@sqlload/core";
import { readTableLogs } from "../logged-state.js";
import { lastRunFailures, positionJSON, positionText, runStatus } from "../run-history.js";
import { SqlloadCommand } from "../sqlload-command.js";

export default class Runs extends SqlloadCommand {
  static override summary = "List each table's recent runs from its run log, newest first.";
  static override description =
    `For every selected table with a run log (_sqlload_runs in its target schema): one line per run, newest first, with the run id, when it last committed, rows, windows committed, the position before → after (the data's cursor, the last window end, the logged state) and its status:

  raw.app__orders
    3b1f…  2026-10-12T16:00:04.120Z  1,000 rows  2 windows  2026-10-01 → 2026-10-07 (window end 2026-10-08)  committed

Status is "committed" for a run's commits ("committed (reload R: building, old table live)" for the runs building a resumable reload, whose positions are the build table's, and "… swapped in" for the run that swapped it in), "failed (CODE) after N commits" for a failed last run (from .sqlload/run_results.json; what it committed stays), and "rollback to run …", "reset" or "reconcile" for corrections. Pass a run id to \`sqlload rollback TABLE --to-run RUN_ID\` to have the next run continue from where that run left the table.`;
  static override examples = [
    "<%= config.bin %> runs",
    "<%= config.bin %> runs app__orders --limit 5",
    "<%= config.bin %> runs app --json",
  ];
  static override strict = false;
  static override args = {
    tables: Args.string({ description: "Tables: app__orders, a source name, or a glob.", ignoreStdin: true }),
  };
  static override flags = {
    limit: Flags.integer({ summary: "Runs shown per table, newest first.", default: 20, min: 1 }),
    json: Flags.boolean({ summary: "Print the runs as JSON." }),
  };

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(Runs);
    const { session, config } = await this.openProject(flags.project);
    try {
      const failures = lastRunFailures(config.dir);
      const logs = await readTableLogs(session, await session.select(argv as string[]));
      const tables = logs.map((log) => {
        const runs = runHistory(log.position.history).slice(0, flags.limit);
        return { log, runs: runs.map((run) => ({ run, status: runStatus(run, failures.get(log.name)) })) };
      });
      if (flags.json) {
        const out = tables.map(({ log, runs }) => ({
          table: log.name,
          runs: runs.map(({ run, status }) => ({
            runId: run.runId,
            event: run.event,
            startedAt: run.startedAt,
            endedAt: run.endedAt,
            rows: run.rows,
            commits: run.commits,
            windows: run.windows,
            before: positionJSON(run.before),
            after: positionJSON(run.after),
            status,
            notes: run.notes,
            ...(run.rollbackTo ? { rollbackTo: run.rollbackTo } : {}),
            ...(run.reload ? { reload: run.reload } : {}),
          })),
        }));
        this.out(JSON.stringify({ tables: out }, null, 2));
        return;
      }
      for (const { log, runs } of tables) {
        this.out(log.name);
        if (runs.length === 0) this.out("  no runs in the run log");
        for (const { run, status } of runs) {
          const windows = `${run.windows} window${run.windows === 1 ? "" : "s"}`;
          const position = `${positionText(run.before)} → ${positionText(run.after)}`;
          this.out(`  ${run.runId}  ${run.endedAt}  ${formatCount(run.rows)} rows  ${windows}  ${position}  ${status}`);
          for (const note of run.event === "run" ? [] : run.notes) this.out(`    ${note}`);
        }
      }
    } finally {
      await session.close();
    }
  }
}
