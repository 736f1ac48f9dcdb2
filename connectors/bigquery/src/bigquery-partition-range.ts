import { SqlloadError } from "@sqlload/core";

/** The ranges of an integer-range-partitioned table: `[start, end)` in steps of `interval`. */
export interface IntegerPartitionRange {
  readonly start: bigint;
  readonly end: bigint;
  readonly interval: bigint;
}

/** BigQuery allows at most 10,000 partitions in a table. */
export const MAX_PARTITIONS = 10_000n;
/**
 * The narrowest range sqlload chooses by itself: a million cursor values (a million rows of an
 * identity column). Narrower ranges make small partitions, which BigQuery reads and keeps less
 * well than one larger partition; a small table gains nothing from pruning anyway.
 */
const MIN_INTERVAL = 1_000_000n;
/** Growth room: the data seen fills at most a tenth of the ranges (and stays under the 4,000 partitions one job may modify). */
const GROWTH = 10n;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/**
 * The ranges a new table gets when `partition_range` does not set them. Without data (a table
 * created before its first rows, as an incremental load creates it): `[0, 10^10)` by a million,
 * the fit for identity columns. With the cursor's minimum and maximum (a replace or `--reload`
 * builds its table after reading rows): starting at the minimum, rounded down, with ranges a
 * "round" width (1, 2 or 5 × 10^k) wide enough that the data fills a tenth of them. Values past
 * `end` land in BigQuery's `__UNPARTITIONED__` partition: still correct, only not pruned.
 */
export function integerPartitionRange(seen?: { readonly min: bigint; readonly max: bigint }): IntegerPartitionRange {
  const min = seen?.min ?? 0n;
  const max = seen?.max ?? 0n;
  const needed = ceilDiv((max - min + 1n) * GROWTH, MAX_PARTITIONS);
  const interval = roundUp(needed > MIN_INTERVAL ? needed : MIN_INTERVAL);
  const start = clamp(floorDiv(min, interval) * interval);
  const end = clamp(start + interval * MAX_PARTITIONS);
  return { start, end, interval };
}

/** The `partition_range` setting (`{ start, end, interval }`), checked against BigQuery's rules. */
export function partitionRangeSetting(value: unknown): IntegerPartitionRange | undefined {
  if (value === undefined) return undefined;
  const bad = (why: string) =>
    new SqlloadError("SL103", `the BigQuery target's \`partition_range\` ${why}`, {
      hint: "Write `partition_range = { start = 0, end = 10000000000, interval = 1000000 }`: integers, at most 10,000 ranges.",
    });
  if (!value || typeof value !== "object" || Array.isArray(value)) throw bad("must be a table of start, end and interval");
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((k) => !["start", "end", "interval"].includes(k));
  if (unknown.length > 0) throw bad(`has no key ${unknown.map((k) => `\`${k}\``).join(", ")}`);
  const part = (key: string): bigint => {
    const v = record[key];
    if (typeof v === "bigint") return v;
    if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
    if (typeof v === "string" && /^-?\d+$/.test(v)) return BigInt(v);
    throw bad(`needs \`${key}\` as an integer`);
  };
  const range = { start: part("start"), end: part("end"), interval: part("interval") };
  if (range.start < INT64_MIN || range.end > INT64_MAX) throw bad("must lie within INT64");
  if (range.interval <= 0n) throw bad("needs a positive `interval`");
  if (range.end <= range.start) throw bad("needs `end` above `start`");
  const count = partitionCount(range);
  if (count > MAX_PARTITIONS) throw bad(`makes ${count} ranges; BigQuery allows at most ${MAX_PARTITIONS}`);
  return range;
}

/** How many ranges `[start, end)` holds (the last may be shorter). */
export function partitionCount(range: IntegerPartitionRange): bigint {
  return ceilDiv(range.end - range.start, range.interval);
}

/** The REST form (`rangePartitioning.range`): INT64 values as strings. */
export function rangeResource(range: IntegerPartitionRange): { start: string; end: string; interval: string } {
  return { start: String(range.start), end: String(range.end), interval: String(range.interval) };
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return a <= 0n ? 0n : (a + b - 1n) / b;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a < 0n && q * b !== a ? q - 1n : q;
}

/** The smallest 1, 2 or 5 × 10^k at or above `n`. */
function roundUp(n: bigint): bigint {
  for (let power = 1n; ; power *= 10n) {
    for (const step of [1n, 2n, 5n]) if (step * power >= n) return step * power;
  }
}

function clamp(n: bigint): bigint {
  return n > INT64_MAX ? INT64_MAX : n < INT64_MIN ? INT64_MIN : n;
}
