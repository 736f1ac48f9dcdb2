import { describe, expect, it } from "vitest";
import { withRetries } from "./bigquery-retry.js";

const apiError = (reason: string, message = "boom") => Object.assign(new Error(message), { errors: [{ reason, message }] });

describe("BigQuery retries", () => {
  const policy = { attempts: 4, firstDelayMs: 40, maxDelayMs: 100 };

  it("runs again after rateLimitExceeded, backendError and a concurrent-update abort, waiting longer each time", async () => {
    const failures = [
      apiError("rateLimitExceeded"),
      apiError("backendError"),
      apiError("invalidQuery", "Transaction is aborted due to concurrent update against table p:d.t"),
    ];
    const at: number[] = [];
    const result = await withRetries(policy, async (n) => {
      at.push(Date.now());
      const failure = failures[n - 1];
      if (failure) throw failure;
      return n;
    });
    expect(result).toBe(4);
    const waits = at.slice(1).map((t, i) => t - (at[i] as number));
    // Each wait is half to all of min(max, first × 2^(n-1)): 40, 80, then capped at 100 ms.
    for (const [i, full] of [40, 80, 100].entries()) {
      expect(waits[i]).toBeGreaterThanOrEqual(full / 2 - 5);
      expect(waits[i]).toBeLessThan(full + 60);
    }
  });

  it("gives up after the policy's attempts, and never retries what cannot pass", async () => {
    let tries = 0;
    await expect(
      withRetries(policy, async () => {
        tries++;
        throw apiError("backendError");
      }),
    ).rejects.toThrow("boom");
    expect(tries).toBe(4);
    tries = 0;
    await expect(
      withRetries(policy, async () => {
        tries++;
        throw apiError("invalid", "Invalid value");
      }),
    ).rejects.toThrow("Invalid value");
    expect(tries).toBe(1);
  });
});
