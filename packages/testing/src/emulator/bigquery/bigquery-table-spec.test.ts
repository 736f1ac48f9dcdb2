import { describe, expect, it } from "vitest";
import type { Field } from "./bigquery-catalog.js";
import { checkTableSpec } from "./bigquery-table-spec.js";

const fields: Field[] = [
  { name: "id", type: "INT64", mode: "REQUIRED" },
  { name: "at", type: "TIMESTAMP" },
  { name: "d", type: "DATE" },
  { name: "f", type: "FLOAT64" },
  { name: "tags", type: "INT64", mode: "REPEATED" },
];
const range = (start: string, end: string, interval: string) => ({
  rangePartitioning: { field: "id", range: { start, end, interval } },
});

describe("the emulator's table definitions", () => {
  it("accepts what BigQuery accepts: DAY on a timestamp or date, integer ranges on INT64, clustering", () => {
    for (const body of [
      { timePartitioning: { type: "DAY", field: "at" }, clustering: { fields: ["id"] } },
      { timePartitioning: { type: "MONTH", field: "d" } },
      range("0", "10000000000", "1000000"),
      range("-9223372036854775808", "9223372036854775807", "922337203685477581"),
      { clustering: { fields: ["id", "at", "d"] } },
      {},
    ]) {
      expect(() => checkTableSpec({ tableReference: {}, schema: { fields }, ...body }, fields)).not.toThrow();
    }
  });

  it("refuses partitioning and clustering BigQuery refuses, and any field it does not know", () => {
    for (const [body, message] of [
      [range("0", "100001", "10"), "Too many partitions"],
      [range("0", "10", "0"), "interval must be positive"],
      [range("10", "10", "1"), "end must be greater"],
      [range("0", "1e3", "1"), "range.end as an INT64 string"],
      [{ rangePartitioning: { field: "at", range: { start: "0", end: "10", interval: "1" } } }, "must be INT64"],
      [{ rangePartitioning: { field: "tags", range: { start: "0", end: "10", interval: "1" } } }, "cannot be REPEATED"],
      [{ timePartitioning: { type: "DAY", field: "f" } }, "must be DATE, TIMESTAMP or DATETIME"],
      [{ timePartitioning: { type: "HOUR", field: "d" } }, "HOUR is not allowed on DATE"],
      [{ timePartitioning: { type: "DAY", field: "nope" } }, "cannot be found"],
      [{ timePartitioning: { type: "DAY", field: "at" }, ...range("0", "10", "1") }, "both time partitioning and range"],
      [{ clustering: { fields: ["f"] } }, "not supported on FLOAT64"],
      [{ clustering: { fields: ["id", "at", "d", "id"] } }, "repeat"],
      [{ clustering: { fields: ["id", "at", "d", "tags", "f"] } }, "1 to 4 fields"],
      [{ partitioning: "DAY" }, 'Unknown name "partitioning"'],
      [{ timePartitioning: { type: "DAY", field: "at", granularity: 1 } }, 'Unknown name "granularity"'],
    ] as const) {
      expect(() => checkTableSpec(body as Record<string, unknown>, fields), message).toThrow(message);
    }
    expect(() => checkTableSpec({ timePartitioning: { type: "DAY" } }, fields)).toThrow("partitions by a column only");
  });
});
