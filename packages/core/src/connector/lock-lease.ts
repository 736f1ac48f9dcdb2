import { hostname } from "node:os";
import { processAlive } from "./process-alive.js";

/**
 * A table lock kept as a lease in the target itself (a lock row, a lock table's comment), for
 * targets with no lock a session can hold: the holder names itself, renews the lease while its run
 * lasts, and a lease whose holder is gone is taken over. What is written where is the connector's;
 * who holds, when a lease is stale and how it is renewed are the same for every such target.
 */
export interface LeaseHolder {
  readonly token: string;
  readonly host: string;
  readonly pid: number;
  /** When the holder last said it is alive (ms since the epoch, its own clock). */
  readonly beat: number;
}

export interface LeaseTiming {
  /** How often a holder renews its lease. */
  readonly heartbeatMs: number;
  /** A lease not renewed for this long is taken over. */
  readonly staleMs: number;
}

export const DEFAULT_LEASE_TIMING: LeaseTiming = { heartbeatMs: 15_000, staleMs: 90_000 };

/** This process as a lease holder. */
export function leaseHolder(token: string, now = Date.now()): LeaseHolder {
  return { token, host: hostname(), pid: process.pid, beat: now };
}

/** A holder as JSON text wrote it, or undefined for text sqlload cannot read (not its own, or damaged). */
export function parseLeaseHolder(text: unknown): (LeaseHolder & Record<string, unknown>) | undefined {
  try {
    const value = JSON.parse(String(text)) as Partial<LeaseHolder> & Record<string, unknown>;
    if (typeof value.token === "string" && typeof value.pid === "number" && typeof value.beat === "number") {
      return { ...value, token: value.token, host: String(value.host ?? ""), pid: value.pid, beat: value.beat };
    }
  } catch {
    // Not JSON: nobody sqlload could wait for.
  }
  return undefined;
}

/**
 * Whether a lease may be taken over: nobody holds it, its holder is a process of this host that no
 * longer exists, or it has not been renewed for `staleMs`. No target here offers fencing, so a
 * holder frozen past `staleMs` can overlap its successor; the timing keeps that to runs stalled for
 * minutes.
 */
export function leaseIsStale(holder: LeaseHolder | undefined, timing: LeaseTiming, now = Date.now()): boolean {
  if (!holder) return true;
  if (holder.host === hostname() && holder.pid !== process.pid && !processAlive(holder.pid)) return true;
  return now - holder.beat > timing.staleMs;
}

export interface Heartbeat {
  /** Stops renewing and waits for a renewal in flight, so a release that follows is not overtaken by it. */
  stop(): Promise<void>;
}

/**
 * Calls `renew` every `everyMs` until stopped. A failed renewal is left for the next beat (a lease
 * outlives a few missed beats), and the timer never keeps the process alive on its own.
 */
export function startHeartbeat(renew: (now: number) => Promise<unknown>, everyMs: number): Heartbeat {
  let beating: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    beating = renew(Date.now()).catch(() => undefined);
  }, everyMs);
  timer.unref();
  let stopped = false;
  return {
    async stop() {
      if (!stopped) {
        stopped = true;
        clearInterval(timer);
      }
      await beating;
    },
  };
}

/**
 * A held lease: renewed every `everyMs` while the run lasts; `release` (once, however often it is
 * called) stops renewing, waits for a renewal in flight, then gives the lease up with `giveUp`.
 */
export function holdLease(
  renew: (now: number) => Promise<unknown>,
  everyMs: number,
  giveUp: () => Promise<void>,
): { release(): Promise<void> } {
  const heartbeat = startHeartbeat(renew, everyMs);
  let released: Promise<void> | undefined;
  return {
    release() {
      released ??= heartbeat.stop().then(giveUp);
      return released;
    },
  };
}
