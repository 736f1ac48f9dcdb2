import { describe, expect, it } from "vitest";
import { logDisagreesWithData, loggedPosition } from "./logged-state.js";
import { decodeRunLogRow, encodeRunLogRecord, type RunLogRecord, type RunLogRow } from "./run-log.js";

const record = (over: Partial<RunLogRecord>): RunLogRow =>
  encodeRunLogRecord({ runId: "r1", table: "raw.api__events", at: "2026-11-29T00:00:00.000Z", event: "run", rows: 1, ...over });

describe("run-log records", () => {
  it("round-trip state, cursor and window end", () => {
    const row = record({
      state: { page: 3, token: "é\u{1F600}" },
      cursor: { kind: "integer", value: 2n ** 60n },
      windowEnd: { kind: "date", value: 20000 },
    });
    expect(decodeRunLogRow(row, 0)).toMatchObject({
      state: { page: 3, token: "é\u{1F600}" },
      cursor: { kind: "integer", value: 2n ** 60n },
      windowEnd: { kind: "date", value: 20000 },
    });
  });

  it("refuse a newer format version or a corrupt body with SL500 naming the record", () => {
    expect(() => decodeRunLogRow({ ...record({}), formatVersion: 99 }, 4)).toThrowError(
      expect.objectContaining({ code: "SL500", message: expect.stringContaining("record #5 of raw.api__events (run r1") }),
    );
    expect(() => decodeRunLogRow({ ...record({}), body: "{nope" }, 0)).toThrowError(expect.objectContaining({ code: "SL500" }));
    expect(() => decodeRunLogRow({ ...record({}), body: '{"event":"explode","rows":1}' }, 0)).toThrowError(
      expect.objectContaining({ code: "SL500" }),
    );
  });
});

describe("loggedPosition", () => {
  it("takes the last record's state; null means cleared", () => {
    expect(loggedPosition([record({ state: 1 }), record({ state: 2 })]).state).toBe(2);
    expect(loggedPosition([record({ state: 1 }), record({ event: "reset", state: null })]).state).toBeUndefined();
    expect(loggedPosition([]).state).toBeUndefined();
  });

  it("is blocked by an unreadable record until a reset comes after it", () => {
    const bad = { ...record({ state: 5 }), formatVersion: 3 };
    const blocked = loggedPosition([record({ state: 1 }), bad]);
    expect(blocked.blocking?.code).toBe("SL500");
    expect(blocked.history).toHaveLength(2);
    const reset = loggedPosition([record({ state: 1 }), bad, record({ event: "reset", state: 7 })]);
    expect(reset.blocking).toBeUndefined();
    expect(reset.state).toBe(7);
    expect(loggedPosition([record({ event: "reset", state: 7 }), bad]).blocking?.code).toBe("SL500");
  });
});

describe("logDisagreesWithData", () => {
  const int = (value: bigint) => ({ kind: "integer" as const, value });
  const logged = loggedPosition([record({ state: "t1", cursor: int(6000n) })]);

  it("is true when the logged cursor differs from the data's maximum, or the data is gone", () => {
    expect(logDisagreesWithData(logged, int(3000n), true)).toBe(true);
    expect(logDisagreesWithData(logged, null, true)).toBe(true);
  });

  it("is false when they agree, without a cursor column, or without a record", () => {
    expect(logDisagreesWithData(logged, int(6000n), true)).toBe(false);
    expect(logDisagreesWithData(logged, int(3000n), false)).toBe(false);
    expect(logDisagreesWithData(loggedPosition([]), int(3000n), true)).toBe(false);
  });
});
