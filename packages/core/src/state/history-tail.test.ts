import { describe, expect, it } from "vitest";
import { runLogRecord as rec } from "../run/testing/run-log-record.js";
import { EarlierRecordsNeeded, isTail, newestFirst } from "./history-tail.js";
import { loggedPosition, walkToPositionStart } from "./logged-state.js";
import { encodeRunLogRecord, type RunLogRecord } from "./run-log.js";

const rows = (records: RunLogRecord[]) => records.map(encodeRunLogRecord);

describe("newestFirst", () => {
  const records = rows([rec({ runId: "a" }), rec({ runId: "b" }), rec({ runId: "c" })]);
  const ids = (history: ReturnType<typeof loggedPosition>["history"], stopAt?: string) => {
    const seen: string[] = [];
    for (const entry of newestFirst(history)) {
      if (!("record" in entry)) continue;
      seen.push(entry.record.runId);
      if (entry.record.runId === stopAt) break;
    }
    return seen;
  };

  it("walks a whole log from its newest record to its first", () => {
    expect(ids(loggedPosition(records).history)).toEqual(["c", "b", "a"]);
  });

  it("lets a walk stop inside a tail, and throws when one goes past its oldest record", () => {
    const tail = loggedPosition(records, { tail: true }).history;
    expect(isTail(tail)).toBe(true);
    expect(ids(tail, "b")).toEqual(["c", "b"]);
    expect(() => ids(tail)).toThrow(EarlierRecordsNeeded);
  });
});

describe("loggedPosition of a tail", () => {
  it("takes the position from the newest record, as the whole log would", () => {
    const records = rows([rec({ runId: "a", state: 1 }), rec({ event: "reconcile", runId: "b", state: 2 })]);
    expect(loggedPosition(records, { tail: true }).state).toBe(2);
  });

  it("needs earlier records for an unreadable one, which the whole log numbers", () => {
    const unreadable = { ...encodeRunLogRecord(rec({})), body: "{" };
    expect(() => loggedPosition([unreadable, ...rows([rec({})])], { tail: true })).toThrow(EarlierRecordsNeeded);
    expect(loggedPosition([unreadable, ...rows([rec({})])]).blocking?.code).toBe("SL500");
  });
});

describe("walkToPositionStart", () => {
  it("stops at a reset, a rollback or an unblocked record; on a tail without one it needs earlier records", () => {
    for (const event of ["reset", "rollback"] as const) {
      expect(() => walkToPositionStart(loggedPosition(rows([rec({}), rec({ event })]), { tail: true }).history)).not.toThrow();
    }
    const marked = rows([rec({}), rec({ unblocked: true }), rec({ event: "reconcile" })]);
    expect(() => walkToPositionStart(loggedPosition(marked, { tail: true }).history)).not.toThrow();
    const commitsOnly = rows([rec({ event: "reconcile" }), rec({ runId: "a" }), rec({ runId: "b" })]);
    expect(() => walkToPositionStart(loggedPosition(commitsOnly, { tail: true }).history)).toThrow(EarlierRecordsNeeded);
    expect(() => walkToPositionStart(loggedPosition(commitsOnly).history)).not.toThrow();
  });
});
