import { SqlloadError } from "../errors/sqlload-error.js";

/**
 * Spaces out units (rows, requests) to `perSecond` on average: each unit books the next free slot
 * `1 / perSecond` after the previous one's, and a caller waits until its slot. No bursts beyond one
 * unit: a paced API never sees more than the rate, whatever the batch sizes.
 */
export class RateLimiter {
  private nextFree = 0;

  constructor(
    readonly perSecond: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Books `units` and returns the milliseconds the caller must wait before using them. */
  reserve(units: number): number {
    const now = this.clock();
    const start = Math.max(now, this.nextFree);
    this.nextFree = start + (units * 1000) / this.perSecond;
    return start - now;
  }

  /** Milliseconds until everything booked so far has had its time (rows already read). */
  owed(): number {
    return Math.max(0, this.nextFree - this.clock());
  }
}

/** Waits `ms`, or rejects with SL307 as soon as `signal` aborts (Ctrl-C must not wait out a pause). */
export function pause(ms: number, signal: AbortSignal, what: string): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new SqlloadError("SL307", `${what} was interrupted`));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
}
