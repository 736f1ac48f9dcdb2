import { describe, expect, it } from "vitest";
import { pause, RateLimiter } from "./rate-limiter.js";

describe("RateLimiter", () => {
  it("spaces units 1/perSecond apart, whatever the batch sizes", () => {
    let now = 1000;
    const limiter = new RateLimiter(4, () => now);
    expect(limiter.reserve(1)).toBe(0);
    expect(limiter.reserve(1)).toBe(250);
    expect(limiter.reserve(2)).toBe(500);
    now += 2000;
    expect(limiter.reserve(1)).toBe(0);
  });

  it("owes the time of rows already read", () => {
    let now = 0;
    const limiter = new RateLimiter(100, () => now);
    limiter.reserve(50);
    expect(limiter.owed()).toBe(500);
    now = 400;
    expect(limiter.owed()).toBe(100);
    now = 900;
    expect(limiter.owed()).toBe(0);
  });
});

describe("pause", () => {
  it("rejects with SL307 as soon as the signal aborts", async () => {
    const controller = new AbortController();
    const waiting = pause(60_000, controller.signal, "--pause");
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: "SL307" });
  });
});
