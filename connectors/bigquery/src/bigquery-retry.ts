import { retryableJobError } from "./errors.js";

/** How often and how patiently a failed job is run again. */
export interface RetryPolicy {
  readonly attempts: number;
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
}

/** BigQuery asks for exponential backoff on rateLimitExceeded and backendError; a concurrent-update abort passes the same way. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, firstDelayMs: 1000, maxDelayMs: 32_000 };

/** Runs `attempt` until it succeeds, fails for good, or runs out of attempts; each attempt gets its number. */
export async function withRetries<T>(policy: RetryPolicy, attempt: (n: number) => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (n >= policy.attempts || !retryableJobError(error)) throw error;
      const delay = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (n - 1));
      await new Promise((resolve) => setTimeout(resolve, delay / 2 + Math.random() * (delay / 2)));
    }
  }
}
