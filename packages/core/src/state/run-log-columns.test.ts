import { describe, expect, it } from "vitest";
import { runLogOrder, runLogRowFromColumns, runLogRowsFromColumns } from "./run-log-columns.js";

const columns = (run_id: string) => ({
  run_id,
  table_name: "raw.t",
  at: "2026-12-01T00:00:00.000Z",
  format_version: 2,
  body: "{}",
});

describe("runLogRowFromColumns", () => {
  it("names the fields and takes the format version however the client gives it", () => {
    const expected = { runId: "r1", table: "raw.t", at: "2026-12-01T00:00:00.000Z", formatVersion: 2, body: "{}" };
    for (const format_version of [2, 2n, "2"])
      expect(runLogRowFromColumns({ ...columns("r1"), format_version })).toEqual(expected);
  });

  it("reads a NULL as empty text (an empty body decodes as no record)", () => {
    expect(runLogRowFromColumns({ run_id: null, table_name: null, at: null, format_version: "1", body: null })).toEqual({
      runId: "",
      table: "",
      at: "",
      formatVersion: 1,
      body: "",
    });
  });
});

describe("runLogOrder and runLogRowsFromColumns", () => {
  it("read the whole log in the order written", () => {
    expect(runLogOrder('"seq"')).toBe('ORDER BY "seq"');
    expect(runLogRowsFromColumns([columns("r1"), columns("r2")]).map((r) => r.runId)).toEqual(["r1", "r2"]);
  });

  it("read the newest records newest first, and give them back in the order written", () => {
    expect(runLogOrder("pos", { last: 100 })).toBe("ORDER BY pos DESC LIMIT 100");
    const selected = [columns("r3"), columns("r2")];
    expect(runLogRowsFromColumns(selected, { last: 100 }).map((r) => r.runId)).toEqual(["r2", "r3"]);
    expect(selected.map((r) => r.run_id)).toEqual(["r3", "r2"]);
  });

  it("refuse a count that is not a whole number, since it is written into the SQL", () => {
    for (const last of [1.5, -1, Number.NaN, 2 ** 60]) expect(() => runLogOrder("seq", { last })).toThrow(/whole number/);
  });
});
