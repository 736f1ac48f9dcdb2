import type { RateLimit } from "../config/rate-limit.js";
import type { ReadRequest, SourceConnection, SourceItem, SourceTableReader } from "../connector/source.js";
import type { EmitEvent } from "../events/run-event.js";
import { pause, RateLimiter } from "./rate-limiter.js";

/** A table's limiters for one run: the table's own, or those its source shares among its tables. */
export interface Pacing {
  readonly rows?: RateLimiter | undefined;
  readonly requests?: RateLimiter | undefined;
}

/** Limiters for a `rate_limit`; undefined when it sets none. */
export function pacingFor(limit: RateLimit | undefined): Pacing | undefined {
  if (!limit) return undefined;
  return {
    rows: limit.rowsPerSecond ? new RateLimiter(limit.rowsPerSecond) : undefined,
    requests: limit.requestsPerSecond ? new RateLimiter(limit.requestsPerSecond) : undefined,
  };
}

/** Waits shorter than this are not worth an event (they would flood a log at high rates). */
const REPORTED_WAIT_MS = 50;

/**
 * The source as one paced table sees it: before pulling more from a read, it waits until the rows
 * read so far have had their time at `rows_per_second`, and it hands table functions a `pace()`
 * that waits for a slot at `requests_per_second`. Each wait worth noting is a `rate_limited` event.
 */
export function pacedSource(source: SourceConnection, pacing: Pacing, table: string, emit: EmitEvent): SourceConnection {
  const waited = (limit: "rows_per_second" | "requests_per_second", limiter: RateLimiter, ms: number) => {
    if (ms >= REPORTED_WAIT_MS)
      emit({ type: "rate_limited", table, limit, perSecond: limiter.perSecond, waitSeconds: ms / 1000 });
  };
  const wrap = (reader: SourceTableReader): SourceTableReader => ({
    ...bindAll(reader),
    read: (request: ReadRequest) => pacedRead(reader, request, pacing, table, waited),
  });
  return {
    capabilities: source.capabilities,
    ...(source.listTables ? { listTables: () => source.listTables!() } : {}),
    describeTable: (request) => source.describeTable(request),
    openTable: async (request, info) => wrap(await source.openTable(request, info)),
    close: () => source.close(),
  };
}

async function* pacedRead(
  reader: SourceTableReader,
  request: ReadRequest,
  pacing: Pacing,
  table: string,
  waited: (limit: "rows_per_second" | "requests_per_second", limiter: RateLimiter, ms: number) => void,
): AsyncIterable<SourceItem> {
  const { rows, requests } = pacing;
  const pace = requests
    ? async () => {
        const ms = requests.reserve(1);
        waited("requests_per_second", requests, ms);
        await pause(ms, request.signal, `waiting for the rate limit of ${table}`);
      }
    : undefined;
  const iterator = reader.read(pace ? { ...request, pace } : request)[Symbol.asyncIterator]();
  try {
    while (true) {
      if (rows) {
        const ms = rows.owed();
        waited("rows_per_second", rows, ms);
        await pause(ms, request.signal, `waiting for the rate limit of ${table}`);
      }
      const next = await iterator.next();
      if (next.done) return;
      if (rows && next.value.kind === "batch") rows.reserve(next.value.batch.length);
      yield next.value;
    }
  } finally {
    await iterator.return?.();
  }
}

/** The reader's optional methods, bound, so the wrapper offers exactly what the reader does. */
function bindAll(reader: SourceTableReader): SourceTableReader {
  return {
    read: reader.read.bind(reader),
    close: reader.close.bind(reader),
    ...(reader.maxCursor ? { maxCursor: reader.maxCursor.bind(reader) } : {}),
    ...(reader.firstCursorAtOrAfter ? { firstCursorAtOrAfter: reader.firstCursorAtOrAfter.bind(reader) } : {}),
  };
}

/**
 * The limiters of one run: a table with its own `rate_limit` gets its own; the others share their
 * source's, so tables loading concurrently from one API stay within its limit together.
 */
export class RunPacing {
  private readonly bySource = new Map<string, Pacing | undefined>();

  constructor(private readonly sources: readonly { readonly name: string; readonly rateLimit?: RateLimit | undefined }[]) {}

  for(source: string, tableLimit: RateLimit | undefined): Pacing | undefined {
    if (tableLimit) return pacingFor(tableLimit);
    if (!this.bySource.has(source)) {
      this.bySource.set(source, pacingFor(this.sources.find((s) => s.name === source)?.rateLimit));
    }
    return this.bySource.get(source);
  }
}
