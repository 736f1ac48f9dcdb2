import { describe, expect, it } from "vitest";
import type { CursorValue } from "../cursor/cursor-value.js";
import { runLogRecord as rec } from "../run/testing/run-log-record.js";
import { loggedPosition } from "./logged-state.js";
import { pendingRollback, rollbackRecord, runPosition } from "./rollback.js";
import { runHistory } from "./run-history.js";
import { encodeRunLogRecord, type RunLogRecord } from "./run-log.js";

const int = (n: number): CursorValue => ({ kind: "integer", value: BigInt(n) });
const history = (records: RunLogRecord[]) => loggedPosition(records.map(encodeRunLogRecord)).history;

describe("rollback", () => {
  const a = rec({ runId: "a", cursor: int(3), rows: 3 });
  const b = rec({ runId: "b", cursor: int(5), rows: 3 });

  it("records the run's position and the data's maximum now, and round-trips through the log", () => {
    const record = rollbackRecord({
      run: runPosition(history([a, b]), "a", "raw.src__t"),
      runId: "x",
      table: "raw.src__t",
      at: a.at,
      logged: false,
      dataMax: int(5),
    });
    const pending = pendingRollback(history([a, b, record]), "integer");
    expect(pending).toEqual({ runId: "a", reason: "rollback to run a", from: int(3), windowEnd: undefined, dataMax: int(5) });
  });

  it("ends at the next commit of an unwindowed table, or at a reset", () => {
    const record = rollbackRecord({ run: a, runId: "x", table: "raw.src__t", at: a.at, logged: false, dataMax: int(5) });
    expect(pendingRollback(history([a, b, record, rec({ runId: "c", cursor: int(6) })]), "integer")).toBeUndefined();
    expect(pendingRollback(history([a, b, record, rec({ runId: "r", event: "reset", state: null })]), "integer")).toBeUndefined();
  });

  it("continues a windowed re-load from the last window it committed until it reaches the old maximum", () => {
    const wa = rec({ runId: "a", cursor: int(3), windowEnd: int(4) });
    const wb = rec({ runId: "b", cursor: int(9), windowEnd: int(10) });
    const record = rollbackRecord({ run: wa, runId: "x", table: "raw.src__t", at: wa.at, logged: false, dataMax: int(9) });
    expect(pendingRollback(history([wa, wb, record]), "integer")).toMatchObject({ from: int(4), windowEnd: int(4) });
    const w1 = rec({ runId: "c", cursor: int(9), windowEnd: int(6) });
    expect(pendingRollback(history([wa, wb, record, w1]), "integer")).toMatchObject({ from: int(6), dataMax: int(9) });
    const done = rec({ runId: "c", cursor: int(9), windowEnd: int(10) });
    expect(pendingRollback(history([wa, wb, record, w1, done]), "integer")).toBeUndefined();
  });

  it("sets a logged table's state to the one the run left", () => {
    const la = rec({ runId: "a", state: { page: 2 } });
    const lb = rec({ runId: "b", state: { page: 5 } });
    const record = rollbackRecord({ run: la, runId: "x", table: "raw.src__t", at: la.at, logged: true, dataMax: null });
    expect(loggedPosition([la, lb, record].map(encodeRunLogRecord)).state).toEqual({ page: 2 });
  });

  it("refuses a run that is not in the log, or is a correction", () => {
    expect(() => runPosition(history([a]), "zz", "raw.src__t")).toThrowError(expect.objectContaining({ code: "SL503" }));
    const reset = rec({ runId: "r", event: "reset", state: null });
    expect(() => runPosition(history([a, reset]), "r", "raw.src__t")).toThrowError(expect.objectContaining({ code: "SL503" }));
  });
});

describe("runHistory", () => {
  it("groups consecutive records of a run, newest first, with the position before and after", () => {
    const runs = runHistory(
      history([
        rec({ runId: "a", cursor: int(2), windowEnd: int(2), rows: 2 }),
        rec({ runId: "a", cursor: int(3), windowEnd: int(4), rows: 1 }),
        rec({ runId: "b", cursor: int(5), windowEnd: int(6), rows: 2 }),
      ]),
    );
    expect(runs.map((r) => [r.runId, r.rows, r.commits, r.windows])).toEqual([
      ["b", 2, 1, 1],
      ["a", 3, 2, 2],
    ]);
    expect(runs[0]!.before).toEqual({ cursor: int(3), windowEnd: int(4), state: undefined });
    expect(runs[1]!.before).toBeNull();
  });
});
