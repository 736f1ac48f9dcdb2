import { formatCount, formatCursor, type RunEvent, type TableResult } from "@sqlload/core";
import { formatSeconds } from "./format.js";

/** The facts of a finished table on one line: `loaded raw.app__orders 1,001 rows 0.1s`. */
export function resultLine(result: TableResult): string {
  if (result.status !== "loaded") {
    const word = result.status === "skipped" ? "skipped" : "failed";
    return `${word} ${result.table}: ${result.error?.code ?? ""} ${result.error?.message ?? ""}`.trim();
  }
  const line = `loaded ${result.table} ${formatCount(result.rows)} rows ${formatSeconds(result.seconds)}`;
  const extras: string[] = [];
  if (result.dropped > 0) extras.push(`${formatCount(result.dropped)} rows outside the read range dropped`);
  if (result.windows > 0) extras.push(`${result.windows} window${result.windows === 1 ? "" : "s"}`);
  if (result.caughtUp === true) extras.push("caught up");
  if (result.caughtUp === false)
    extras.push(`not caught up: at ${result.positionAfter ? formatCursor(result.positionAfter) : "the start"}`);
  if (result.reload === "building") extras.push("reload building, old table live until the swap");
  if (result.reload === "swapped") extras.push("reload swapped in");
  if (result.rows === 0 && result.status === "loaded") extras.push("nothing new");
  return extras.length ? `${line} (${extras.join(", ")})` : line;
}

/** What a failed or interrupted table kept: `failed raw.shop__events after 400 rows committed (4 commits)`. */
export function committedLine(result: TableResult): string {
  const word = result.status === "skipped" ? "skipped" : result.error?.code === "SL307" ? "interrupted" : "failed";
  const commits = result.commits ?? 0;
  const detail = commits > 0 ? ` (${commits} commit${commits === 1 ? "" : "s"})` : "";
  return `${word} ${result.table} after ${formatCount(result.rows)} rows committed${detail}`;
}

/** Plain lines for logs and pipes: one per commit, one per finished table. */
export function lineRenderer(write: (line: string) => void, writeError: (line: string) => void): (event: RunEvent) => void {
  return (event) => {
    switch (event.type) {
      case "window_committed": {
        const where = event.window ? `window ${event.window.index + 1}/${event.window.count}` : "commit";
        const position = event.position ? ` position ${formatCursor(event.position)}` : "";
        write(`committed ${event.table} ${where} ${formatCount(event.rows)} rows${position}`);
        break;
      }
      case "table_completed":
        write(resultLine(event.result));
        break;
      case "rate_limited":
        // Short waits are the pacing working as asked; a log line is worth it only when it is felt.
        if (event.waitSeconds >= 1)
          write(`rate limited ${event.table}: waiting ${formatSeconds(event.waitSeconds)} (${event.limit} ${event.perSecond})`);
        break;
      case "table_warning":
        writeError(`warning ${event.table}: ${event.message}`);
        break;
      case "table_reconciled":
        writeError(`reconciled ${event.table}: ${event.note}`);
        break;
      case "table_failed":
      case "table_skipped":
        writeError(resultLine(event.result));
        if (event.result.error?.hint) writeError(`  hint: ${event.result.error.hint}`);
        break;
      default:
        break;
    }
  };
}
