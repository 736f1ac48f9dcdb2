import { describe, expect, it } from "vitest";
import { SqlloadError } from "../errors/sqlload-error.js";
import { backoffMs, connectWithRetry, isConnectionFailure, type RetryClock } from "./connect-retry.js";

/** A clock that advances only when slept on, recording each pause. */
function fakeClock(random = 0.5) {
  let now = 0;
  const sleeps: number[] = [];
  const clock: RetryClock = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    random: () => random,
  };
  return { clock, sleeps };
}

const refused = () => new SqlloadError("SL308", "connecting (target pg): connect ECONNREFUSED 127.0.0.1:1", { retryable: true });
const login = () => new SqlloadError("SL305", 'password authentication failed for user "u"', { retryable: false });

/** An opener that fails with the given errors in turn, then succeeds. */
function opener(...failures: SqlloadError[]) {
  let calls = 0;
  const open = async () => {
    const failure = failures[calls++];
    if (failure) throw failure;
    return "connection";
  };
  return { open, calls: () => calls };
}

describe("connectWithRetry", () => {
  it("retries a refused connection and returns once it opens", async () => {
    const { clock, sleeps } = fakeClock();
    const o = opener(refused(), refused());
    expect(await connectWithRetry(o.open, { retries: 4, timeoutMs: 10_000 }, "target pg", clock)).toBe("connection");
    expect(o.calls()).toBe(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[1]!).toBeGreaterThan(sleeps[0]!);
  });

  it("gives up after connect_retries more attempts, saying how many were made", async () => {
    const { clock, sleeps } = fakeClock();
    const o = opener(refused(), refused(), refused(), refused());
    const error = await connectWithRetry(o.open, { retries: 2, timeoutMs: 10_000 }, "target pg", clock).catch((e) => e);
    expect(o.calls()).toBe(3);
    expect(sleeps).toHaveLength(2);
    expect(error).toMatchObject({ code: "SL308", retryable: true });
    expect(error.message).toMatch(/ECONNREFUSED .*\(target pg: gave up after 3 attempts over \d+\.\ds\)$/);
    expect(error.hint).toContain("connect_retries");
  });

  it("stops at connect_timeout even with attempts left, never sleeping past it", async () => {
    let now = 0;
    const sleeps: number[] = [];
    const clock: RetryClock = { now: () => now, sleep: async (ms) => void sleeps.push(ms), random: () => 1 };
    let calls = 0;
    // Each attempt takes 400 ms to be refused (a connect timeout, say).
    const open = async () => {
      calls++;
      now += 400;
      throw refused();
    };
    const error = await connectWithRetry(open, { retries: 10, timeoutMs: 1_000 }, "source app", clock).catch((e) => e);
    expect(calls).toBe(3);
    expect(error.message).toContain("gave up after 3 attempts over 1.2s");
  });

  it("never retries an authentication failure, nor anything not retryable", async () => {
    const { clock, sleeps } = fakeClock();
    const o = opener(login());
    await expect(connectWithRetry(o.open, { retries: 4, timeoutMs: 10_000 }, "target pg", clock)).rejects.toMatchObject({
      message: 'password authentication failed for user "u"',
    });
    expect(o.calls()).toBe(1);
    expect(sleeps).toEqual([]);
    const plain = opener(new Error("bug") as SqlloadError);
    await expect(connectWithRetry(plain.open, { retries: 4, timeoutMs: 10_000 }, "x", clock)).rejects.toThrow("bug");
    expect(plain.calls()).toBe(1);
  });

  it("tries once with connect_retries = 0 and says so", async () => {
    const { clock } = fakeClock();
    const o = opener(refused(), refused());
    const error = await connectWithRetry(o.open, { retries: 0, timeoutMs: 10_000 }, "target pg", clock).catch((e) => e);
    expect(o.calls()).toBe(1);
    expect(error.message).toContain("gave up after 1 attempt)");
  });
});

describe("isConnectionFailure", () => {
  it("is true for retryable connection codes only: not a login, not a held lock", () => {
    expect(isConnectionFailure(refused())).toBe(true);
    expect(isConnectionFailure(new SqlloadError("SL304", "source down", { retryable: true }))).toBe(true);
    expect(isConnectionFailure(login())).toBe(false);
    expect(isConnectionFailure(new SqlloadError("SL309", "auth"))).toBe(false);
    expect(isConnectionFailure(new SqlloadError("SL306", "locked"))).toBe(false);
    expect(isConnectionFailure(new Error("ECONNREFUSED"))).toBe(false);
  });
});

describe("backoffMs", () => {
  it("doubles each attempt, jittered between half and all of the step, and the steps fill the timeout", () => {
    const policy = { retries: 4, timeoutMs: 10_000 };
    const full = [0, 1, 2, 3].map((k) => backoffMs(k, policy, () => 1));
    expect(full.reduce((a, b) => a + b, 0)).toBeCloseTo(10_000);
    expect(full[1]! / full[0]!).toBeCloseTo(2);
    expect(backoffMs(2, policy, () => 0)).toBeCloseTo(full[2]! / 2);
  });
});
