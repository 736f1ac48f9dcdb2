import { Args, Flags } from "@oclif/core";
import { openQueue, parseQueueUrl, queueStatus } from "@sqlload/queue";
import { SqlloadCommand } from "../sqlload-command.js";

export default class Status extends SqlloadCommand {
  static override summary = "Show what a queue holds: table passes queued, running, done and failed.";
  static override description =
    "Reads the queue that `sqlload load --queue URL` fills and `sqlload worker` empties. With a RUN_ID (printed by `load --queue --detach`), only that run's passes. Needs no project.";
  static override examples = [
    "<%= config.bin %> status --queue postgresql://sqlload@queue-db/sqlload",
    "<%= config.bin %> status --queue redis://127.0.0.1:6379 6f1c2a0e-… --json",
  ];
  static override args = { runId: Args.string({ description: "Only this run's passes.", ignoreStdin: true }) };
  static override flags = {
    queue: Flags.string({
      summary: "The queue: postgresql://… or redis://…",
      required: true,
      helpValue: "URL",
      env: "SQLLOAD_QUEUE",
    }),
    json: Flags.boolean({ summary: "Print JSON." }),
  };

  async run(): Promise<void> {
    const { flags, args } = await this.parse(Status);
    const queue = openQueue(parseQueueUrl(flags.queue));
    try {
      const status = await queueStatus(queue, args.runId);
      if (flags.json) {
        this.out(JSON.stringify(status, null, 2));
        return;
      }
      const c = status.counts;
      this.out(
        `queued ${(c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0)}, running ${c.active ?? 0}, done ${c.completed ?? 0}, failed ${c.failed ?? 0}`,
      );
      for (const p of status.passes) {
        const rows = p.rows !== undefined ? ` ${p.rows} rows` : "";
        const error = p.error ? ` ${p.error}` : "";
        this.out(
          `  ${p.state.padEnd(9)} ${p.table} pass ${p.pass}${rows}${p.attempts > 1 ? ` (${p.attempts} attempts)` : ""}${error}  run ${p.runId}`,
        );
      }
    } finally {
      await queue.close();
    }
  }
}
