import { describe, expect, it } from "vitest";
import { FailureInjector, requestMatching } from "./failure-injection.js";

const script = { protocol: "bigquery", operation: "jobs.insert", shapes: ["begin", "delete_range", "commit"] };
const upload = { protocol: "bigquery", operation: "upload", shapes: [] };

describe("FailureInjector", () => {
  it("fails only the matching request, the given number of times, and logs every request", async () => {
    const injector = new FailureInjector();
    const hit = injector.failNext(requestMatching({ shape: "delete_range" }), "boom", { status: 500, reason: "backendError" });
    await expect(injector.intercept(upload)).resolves.toBeUndefined();
    await expect(injector.intercept(script)).rejects.toMatchObject({
      kind: "injected",
      message: "boom",
      status: 500,
      reason: "backendError",
    });
    await expect(injector.intercept(script)).resolves.toBeUndefined();
    expect(await hit).toBe(script);
    expect(injector.requests).toHaveLength(3);
  });

  it("holds a request until released, so a test can kill the client while it is in flight", async () => {
    const injector = new FailureInjector();
    const arrived = injector.holdNext(requestMatching({ operation: "jobs.insert" }));
    let done = false;
    const pending = injector.intercept(script).then(() => {
      done = true;
    });
    await arrived;
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    injector.releaseHeld();
    await pending;
    expect(done).toBe(true);
  });
});
