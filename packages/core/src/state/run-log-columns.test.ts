import { describe, expect, it } from "vitest";
import { runLogRowFromColumns } from "./run-log-columns.js";

describe("runLogRowFromColumns", () => {
  it("names the fields and takes the format version however the client gives it", () => {
    const columns = { run_id: "r1", table_name: "raw.t", at: "2026-12-01T00:00:00.000Z", body: "{}" };
    const expected = { runId: "r1", table: "raw.t", at: "2026-12-01T00:00:00.000Z", formatVersion: 2, body: "{}" };
    for (const format_version of [2, 2n, "2"]) expect(runLogRowFromColumns({ ...columns, format_version })).toEqual(expected);
  });
});
