import { SqlloadError } from "@sqlload/core";

/**
 * Where the queue lives. `postgresql://` (the default engine: BullMQ's Postgres backend, its tables
 * in a schema of their own) or `redis://` / `rediss://`.
 */
export interface QueueLocation {
  readonly kind: "postgres" | "redis";
  /** The URL with its password replaced by `***`, for every message. */
  readonly redacted: string;
  readonly url: string;
}

/** The schema BullMQ's Postgres backend creates its tables in, on first use. */
export const QUEUE_SCHEMA = "sqlload_queue";

export function parseQueueUrl(url: string): QueueLocation {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SqlloadError("SL600", `--queue ${JSON.stringify(url)} is not a URL`);
  }
  const redacted = parsed.password ? url.replace(`:${parsed.password}@`, ":***@") : url;
  switch (parsed.protocol) {
    case "postgres:":
    case "postgresql:":
      return { kind: "postgres", url, redacted };
    case "redis:":
    case "rediss:":
      return { kind: "redis", url, redacted };
    default:
      throw new SqlloadError("SL600", `--queue ${redacted}: unknown scheme ${parsed.protocol.replace(/:$/, "")}`);
  }
}
