import { type ErrorLocation, SqlloadError } from "../errors/sqlload-error.js";

/** `rate_limit`: how fast a source or table may be read within a run. */
export interface RateLimit {
  /** Rows read per second, averaged from the table's first read. */
  readonly rowsPerSecond?: number | undefined;
  /** Requests per second a TypeScript table makes, each announced by `await ctx.pace()`. */
  readonly requestsPerSecond?: number | undefined;
}

const KEYS = { rows_per_second: "rowsPerSecond", requests_per_second: "requestsPerSecond" } as const;

/**
 * Reads `{ rows_per_second = 1000, requests_per_second = 2 }` (camelCase in TypeScript options):
 * positive numbers, at least one of them.
 */
export function parseRateLimit(value: unknown, key: string, location: ErrorLocation, naming: "snake" | "camel"): RateLimit {
  const shown =
    naming === "camel" ? "{ rowsPerSecond: 1000, requestsPerSecond: 2 }" : "{ rows_per_second = 1000, requests_per_second = 2 }";
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new SqlloadError("SL103", `\`${key}\` must be a table such as ${shown}`, { location });
  }
  const out: Record<string, number> = {};
  for (const [name, raw] of Object.entries(value)) {
    const field = naming === "camel" ? Object.values(KEYS).find((k) => k === name) : KEYS[name as keyof typeof KEYS];
    if (!field) {
      throw new SqlloadError("SL102", `unknown key \`${name}\` in \`${key}\``, {
        location,
        hint: `\`${key}\` takes ${naming === "camel" ? "rowsPerSecond and requestsPerSecond" : "rows_per_second and requests_per_second"}.`,
      });
    }
    const n = typeof raw === "bigint" ? Number(raw) : raw;
    if (typeof n !== "number" || !Number.isFinite(n) || n <= 0) {
      throw new SqlloadError("SL103", `\`${key}.${name}\` must be a positive number, not ${JSON.stringify(String(raw))}`, {
        location,
      });
    }
    out[field] = n;
  }
  if (Object.keys(out).length === 0) throw new SqlloadError("SL103", `\`${key}\` sets no limit: give ${shown}`, { location });
  return out;
}
