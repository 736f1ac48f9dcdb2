import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Rows per page of the feed. */
const PAGE_ROWS = 50;

/**
 * A TypeScript table whose position lives only in the run log: `append`, `state = "logged"`,
 * no cursor column. It reads a sync token (the last page read) from `ctx.state`, yields the
 * pages after it up to the count in `feed.json` beside it, and a checkpoint after each page.
 * A record lost after its rows landed would make the next run append those pages again.
 */
const MODULE = `import { readFileSync } from "node:fs";
import { checkpoint, source } from "sqlload";

const api = source("api");

export const events = api.table(
  { writeStrategy: "append", state: "logged", columns: { id: "bigint not null", page: "bigint not null" } },
  async function* events(ctx) {
    const { pages } = JSON.parse(readFileSync(new URL("./feed.json", import.meta.url), "utf8"));
    for (let page = (ctx.state ?? 0) + 1; page <= pages; page++) {
      yield Array.from({ length: ${PAGE_ROWS} }, (_, i) => ({ id: (page - 1) * ${PAGE_ROWS} + i + 1, page }));
      yield checkpoint(page);
    }
  },
);
`;

/** The `[sources.api]` block that loads the feed as table `api__events`. */
export const LOGGED_FEED_TOML = `[sources.api]\nconnector = "typescript"\nmodule = "events.ts"\n`;

/** Writes the feed's module into a project folder, serving `pages` pages. */
export function writeLoggedFeed(dir: string, pages: number): void {
  writeFileSync(join(dir, "events.ts"), MODULE);
  setFeedPages(dir, pages);
}

/** The source now holds `pages` pages. */
export function setFeedPages(dir: string, pages: number): void {
  writeFileSync(join(dir, "feed.json"), JSON.stringify({ pages }));
}

/** The ids the feed holds at `pages` pages, in order: what the target must end equal to. */
export function feedIds(pages: number): bigint[] {
  return Array.from({ length: pages * PAGE_ROWS }, (_, i) => BigInt(i + 1));
}
