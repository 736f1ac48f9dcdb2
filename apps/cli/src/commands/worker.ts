import { Flags } from "@oclif/core";
import { keepWholeRunsCode } from "@sqlload/core";
import { type PassOutcome, parseQueueUrl, startTableWorker } from "@sqlload/queue";
import { projectVersion } from "../queue/project-version.js";
import { runPass } from "../queue/run-pass.js";
import { SqlloadCommand } from "../sqlload-command.js";

export default class Worker extends SqlloadCommand {
  static override summary = "Run table loads taken from a queue, on this machine, until stopped.";
  static override description =
    `Takes table-runs that \`sqlload load --queue URL\` enqueued and runs each exactly as \`sqlload load TABLE\` would here: the same plan, lock, commits and run log. Start as many workers as you like, on as many machines; every one must have the same project (sqlload.toml and table modules): a job made from another version is refused (SL601).

The queue is BullMQ: on Postgres (postgresql://…, its tables created on first use in the schema sqlload_queue) or on Redis (redis://…). A job may run twice (a worker killed after a commit and before the queue heard of it): the target stays the authority, so a pass that runs again carries on from where the table's data and run log say it stands, and commits nothing twice.

SIGTERM (or Ctrl-C) stops taking jobs and lets the passes in flight commit and finish, then exits 0; a second signal rolls back the window in flight and exits 130 at once (the queue gives its job to another worker within a few seconds). A health line is printed every minute.`;
  static override examples = [
    "<%= config.bin %> worker --queue postgresql://sqlload@queue-db:5432/sqlload",
    "<%= config.bin %> worker --queue redis://127.0.0.1:6379 --concurrency 4 --project /srv/warehouse",
  ];
  static override flags = {
    queue: Flags.string({
      summary: "The queue: postgresql://… or redis://…",
      required: true,
      helpValue: "URL",
      env: "SQLLOAD_QUEUE",
    }),
    concurrency: Flags.integer({ summary: "Table passes run at once by this worker.", default: 1, min: 1 }),
    "stall-timeout": Flags.integer({
      summary: "Seconds before a pass whose worker died is given to another worker.",
      description:
        "A live worker renews its hold on a pass every half of this; one that was killed or cut off loses it after this long. Shorter recovers sooner, longer tolerates longer pauses (a slow network, a stop-the-world GC). Every worker of a queue should use the same value.",
      default: 10,
      min: 1,
    }),
  };

  async run(): Promise<void> {
    // A load runs what the next loads will: the compiled code it keeps replaces what a shorter command kept.
    keepWholeRunsCode();
    const { flags } = await this.parse(Worker);
    const location = parseQueueUrl(flags.queue);
    this.secrets = [...this.secrets, ...secretOf(flags.queue)];
    const { config, discovery } = await this.openProject(flags.project);
    const connectors = (name: string) => discovery.connectors.get(name)?.connector;
    const version = projectVersion(config);
    const healthEveryMs = Number(process.env.SQLLOAD_WORKER_HEALTH_MS) || 60_000;
    const worker = await startTableWorker({
      location,
      concurrency: flags.concurrency,
      projectHash: version,
      healthEveryMs,
      timings: {
        lockDuration: flags["stall-timeout"] * 1000,
        stalledInterval: Math.max(500, (flags["stall-timeout"] * 1000) / 2),
      },
      say: (line) => this.err(`worker ${process.pid}: ${line}`),
      runPass: (job, context): Promise<PassOutcome> => runPass(config, connectors, job, context),
    });
    let signals = 0;
    const onSignal = () => {
      signals++;
      if (signals === 1) {
        this.err(`worker ${process.pid}: stopping: finishing the passes in flight (signal again to stop at once)`);
        void worker.stop();
      } else {
        void worker.stop({ abort: true });
        setTimeout(() => process.exit(130), 2_000).unref();
      }
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
    await worker.closed;
    this.err(`worker ${process.pid}: stopped`);
  }
}

function secretOf(url: string): string[] {
  try {
    const password = new URL(url).password;
    return password ? [password, decodeURIComponent(password)] : [];
  } catch {
    return [];
  }
}
