import { isSqlloadError, SqlloadError } from "../errors/sqlload-error.js";

/** How long and how often core tries to open a connection (`connect_retries`, `connect_timeout`). */
export interface ConnectPolicy {
  /** Attempts after the first; 0 tries once. */
  readonly retries: number;
  /** How long to keep trying, from the first attempt, in milliseconds. */
  readonly timeoutMs: number;
}

/** A few attempts over about ten seconds (SPEC §8, §13). */
export const DEFAULT_CONNECT_POLICY: ConnectPolicy = { retries: 4, timeoutMs: 10_000 };

/** Codes a connector raises for a refused, reset or timed-out connection (with `retryable`). */
const CONNECTION_CODES = new Set(["SL304", "SL308", "SL311"]);

/**
 * A failure to reach the system, worth another attempt: a retryable connection error. An
 * authentication failure is never one (connectors raise it not retryable), nor a held lock.
 */
export function isConnectionFailure(error: unknown): error is SqlloadError {
  return isSqlloadError(error) && error.retryable && CONNECTION_CODES.has(error.code);
}

/**
 * The pause before attempt `attempt + 1` (0-based): exponential, sized so that the undelayed
 * sum of all pauses fills `timeoutMs`, with "equal jitter" (half fixed, half random) so that
 * many runs refused together do not come back in step.
 */
export function backoffMs(attempt: number, policy: ConnectPolicy, random: () => number = Math.random): number {
  const base = policy.timeoutMs / (2 ** policy.retries - 1 || 1);
  const step = base * 2 ** attempt;
  return step / 2 + (step / 2) * random();
}

export interface RetryClock {
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

const realClock: RetryClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Opens a connection, retrying connection failures with backoff until `retries` more attempts
 * or `timeoutMs` have passed. Any other failure, an authentication failure included, is thrown
 * at once. The last failure says how many attempts were made.
 */
export async function connectWithRetry<T>(
  open: () => Promise<T>,
  policy: ConnectPolicy,
  what: string,
  clock: RetryClock = realClock,
): Promise<T> {
  const started = clock.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await open();
    } catch (error) {
      if (!isConnectionFailure(error)) throw error;
      const remaining = policy.timeoutMs - (clock.now() - started);
      if (attempt >= policy.retries || remaining <= 0) throw gaveUp(error, attempt + 1, clock.now() - started, what);
      await clock.sleep(Math.min(backoffMs(attempt, policy, clock.random), remaining));
    }
  }
}

function gaveUp(error: SqlloadError, attempts: number, elapsedMs: number, what: string): SqlloadError {
  const tries = attempts === 1 ? "1 attempt" : `${attempts} attempts over ${(elapsedMs / 1000).toFixed(1)}s`;
  return new SqlloadError(error.code, `${error.message} (${what}: gave up after ${tries})`, {
    hint: `${error.hint} Raise \`connect_retries\` or \`connect_timeout\` to keep trying longer.`,
    retryable: error.retryable,
    cause: error.cause ?? error,
    ...(error.location ? { location: error.location } : {}),
    ...(error.table ? { table: error.table } : {}),
  });
}
