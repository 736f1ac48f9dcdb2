import { describe, expect, it } from "vitest";
import {
  integerPartitionRange,
  MAX_PARTITIONS,
  partitionCount,
  partitionRangeSetting,
  rangeResource,
} from "./bigquery-partition-range.js";

describe("integer partition ranges", () => {
  it("without data: [0, 10^10) by a million, the fit for identity columns", () => {
    expect(integerPartitionRange()).toEqual({ start: 0n, end: 10_000_000_000n, interval: 1_000_000n });
    // Small data changes nothing: ranges never get narrower than a million values.
    expect(integerPartitionRange({ min: 1n, max: 300n })).toEqual(integerPartitionRange());
  });

  it("from the data: starts at its minimum, rounded down, and fills a tenth of the ranges with a round interval", () => {
    const range = integerPartitionRange({ min: 5_000_000_123n, max: 6_500_000_000n });
    expect(range).toEqual({ start: 5_000_000_000n, end: 25_000_000_000n, interval: 2_000_000n });
    expect(partitionCount(range)).toBe(MAX_PARTITIONS);
    // The data seen occupies at most a tenth of the ranges: growth room, and under the 4,000 partitions one job may touch.
    expect((6_500_000_000n - range.start) / range.interval + 1n).toBeLessThanOrEqual(MAX_PARTITIONS / 10n);
  });

  it("from negative and extreme data, within INT64 and at most 10,000 ranges", () => {
    expect(integerPartitionRange({ min: -1_500_000n, max: 10n })).toEqual({
      start: -2_000_000n,
      end: 9_998_000_000n,
      interval: 1_000_000n,
    });
    const wide = integerPartitionRange({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    expect(wide.start).toBe(-(2n ** 63n));
    expect(wide.end).toBe(2n ** 63n - 1n);
    expect(partitionCount(wide)).toBeLessThanOrEqual(MAX_PARTITIONS);
  });

  it("travels as INT64 strings", () => {
    expect(rangeResource({ start: -1n, end: 2n ** 62n, interval: 3n })).toEqual({
      start: "-1",
      end: "4611686018427387904",
      interval: "3",
    });
  });

  it("reads the partition_range setting and refuses what BigQuery would", () => {
    expect(partitionRangeSetting(undefined)).toBeUndefined();
    expect(partitionRangeSetting({ start: 0, end: 100_000, interval: 10 })).toEqual({
      start: 0n,
      end: 100_000n,
      interval: 10n,
    });
    expect(partitionRangeSetting({ start: "-9223372036854775808", end: 0n, interval: "922337203685477581" })).toMatchObject({
      interval: 922_337_203_685_477_581n,
    });
    for (const [value, message] of [
      [{ start: 0, end: 100_001, interval: 10 }, "makes 10001 ranges"],
      [{ start: 0, end: 10, interval: 0 }, "positive `interval`"],
      [{ start: 5, end: 5, interval: 1 }, "`end` above `start`"],
      [{ start: 0, end: 10 }, "needs `interval`"],
      [{ start: 0.5, end: 10, interval: 1 }, "needs `start`"],
      [{ start: 0, end: 10, interval: 1, step: 2 }, "no key `step`"],
      [{ start: 0, end: "9223372036854775808", interval: 1 }, "within INT64"],
      [[0, 10, 1], "table of start"],
    ] as const) {
      expect(() => partitionRangeSetting(value)).toThrow(
        expect.objectContaining({ code: "SL103", message: expect.stringContaining(message) }),
      );
    }
  });
});
