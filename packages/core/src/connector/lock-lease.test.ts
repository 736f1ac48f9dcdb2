import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { holdLease, leaseHolder, leaseIsStale, parseLeaseHolder, startHeartbeat } from "./lock-lease.js";

const timing = { heartbeatMs: 10, staleMs: 1000 };

describe("lock leases", () => {
  it("round-trips a holder through its JSON text, keeping a connector's own fields", () => {
    const holder = { ...leaseHolder("t-1", 5), since: 3 };
    expect(parseLeaseHolder(JSON.stringify(holder))).toEqual(holder);
    expect(parseLeaseHolder("not json")).toBeUndefined();
    expect(parseLeaseHolder(JSON.stringify({ token: 1 }))).toBeUndefined();
    expect(parseLeaseHolder(undefined)).toBeUndefined();
  });

  it("is stale when nobody holds it, when its holder is a dead process of this host, or when not renewed", () => {
    const now = 100_000;
    expect(leaseIsStale(undefined, timing, now)).toBe(true);
    expect(leaseIsStale(leaseHolder("me", now - 10), timing, now)).toBe(false);
    expect(leaseIsStale(leaseHolder("me", now - 5000), timing, now)).toBe(true);
    // A pid far beyond any live process on this host: its lease is a dead run's.
    expect(leaseIsStale({ token: "x", host: hostname(), pid: 2 ** 22 + 12345, beat: now }, timing, now)).toBe(true);
    // On another host sqlload cannot look: only the age tells.
    expect(leaseIsStale({ token: "x", host: "elsewhere", pid: 2 ** 22 + 12345, beat: now }, timing, now)).toBe(false);
  });

  it("renews until stopped, survives a failed renewal, and waits for the one in flight", async () => {
    const beats: number[] = [];
    let fail = true;
    let inFlight = false;
    const heartbeat = startHeartbeat(async (at) => {
      inFlight = true;
      await new Promise((r) => setTimeout(r, 15));
      inFlight = false;
      if (fail) {
        fail = false;
        throw new Error("network");
      }
      beats.push(at);
    }, 10);
    await new Promise((r) => setTimeout(r, 120));
    await heartbeat.stop();
    expect(inFlight).toBe(false);
    expect(beats.length).toBeGreaterThan(0);
    const count = beats.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(beats.length).toBe(count);
  });
});

describe("holdLease", () => {
  it("gives the lease up once, after the renewal in flight, however often release is called", async () => {
    const order: string[] = [];
    const lease = holdLease(
      async () => {
        order.push("renew");
        await new Promise((r) => setTimeout(r, 20));
        order.push("renewed");
      },
      5,
      async () => {
        order.push("given up");
      },
    );
    await new Promise((r) => setTimeout(r, 12));
    await Promise.all([lease.release(), lease.release()]);
    await lease.release();
    expect(order.filter((o) => o === "given up")).toHaveLength(1);
    expect(order.at(-1)).toBe("given up");
    expect(order.at(-2)).toBe("renewed");
  });
});
