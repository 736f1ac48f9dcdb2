import type { RunEvent } from "@sqlload/core";
import { formatCount } from "@sqlload/core";
import { formatSeconds } from "./format.js";
import { resultLine } from "./line-renderer.js";

interface Live {
  rows: number;
  windowsDone: number;
  windowsTotal?: number | undefined;
  readonly started: number;
  /** Until when the table waits for its rate limit (epoch ms), for the hint. */
  limitedUntil?: number | undefined;
}

/**
 * Live progress for a terminal: finished tables print their line above, tables in flight keep
 * one redrawn line each (rows, rows/s, windows done of total, elapsed).
 */
export class ProgressRenderer {
  private readonly live = new Map<string, Live>();
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (text: string) => void,
    private readonly interval = 100,
  ) {}

  readonly onEvent = (event: RunEvent): void => {
    switch (event.type) {
      case "table_started":
        this.live.set(event.table, { rows: 0, windowsDone: 0, windowsTotal: event.plan.windows?.count, started: Date.now() });
        this.schedule();
        break;
      case "rows_read": {
        const live = this.live.get(event.table);
        if (live) {
          live.rows = event.rows;
          live.windowsDone = event.windowsDone;
        }
        this.schedule();
        break;
      }
      case "window_committed": {
        const live = this.live.get(event.table);
        if (live) {
          live.rows = event.totalRows;
          if (event.window) live.windowsDone = Math.max(live.windowsDone, event.window.index + 1);
        }
        this.schedule();
        break;
      }
      case "rate_limited": {
        const live = this.live.get(event.table);
        if (live) live.limitedUntil = Date.now() + event.waitSeconds * 1000;
        this.schedule();
        break;
      }
      case "table_reconciled":
        this.above(`reconciled ${event.table}: ${event.note}`);
        break;
      case "table_warning":
        this.above(`warning ${event.table}: ${event.message}`);
        break;
      case "table_completed":
      case "table_failed":
      case "table_skipped":
        this.live.delete(event.result.table);
        this.above(resultLine(event.result) + (event.result.error?.hint ? `\n  hint: ${event.result.error.hint}` : ""));
        break;
      case "run_completed":
        this.stop();
        break;
      default:
        break;
    }
  };

  /** Prints a permanent line above the live block. */
  private above(text: string): void {
    this.clear();
    this.write(`${text}\n`);
    this.draw();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.clear();
      this.draw();
    }, this.interval);
  }

  private clear(): void {
    if (this.drawn > 0) this.write(`\x1b[${this.drawn}A\x1b[0J`);
    this.drawn = 0;
  }

  private draw(): void {
    const lines: string[] = [];
    for (const [table, live] of this.live) {
      const seconds = (Date.now() - live.started) / 1000;
      const rate = seconds > 0 ? Math.round(live.rows / seconds) : 0;
      const windows = live.windowsTotal ? `  window ${live.windowsDone}/${live.windowsTotal}` : "";
      const limited = live.limitedUntil !== undefined && live.limitedUntil > Date.now() ? "  rate limited, waiting" : "";
      lines.push(
        `⠿ ${table}  ${formatCount(live.rows)} rows  ${formatCount(rate)} rows/s${windows}  ${formatSeconds(seconds)}${limited}`,
      );
    }
    if (lines.length) this.write(`${lines.join("\n")}\n`);
    this.drawn = lines.length;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.clear();
  }
}
