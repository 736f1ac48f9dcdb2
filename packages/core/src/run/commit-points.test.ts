import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Column } from "../connector/logical-types.js";
import { batchFromRows, batchToRows, type RecordBatch } from "../connector/record-batch.js";
import type { SourceItem } from "../connector/source.js";
import { CommitPoints } from "./commit-points.js";

const schema: Column[] = [
  { name: "k", type: { kind: "int64" }, nullable: true },
  { name: "n", type: { kind: "int32" }, nullable: false },
];
let serial = 0;
const batch = (...keys: (bigint | null)[]): RecordBatch =>
  batchFromRows(
    schema,
    keys.map((k) => ({ k, n: serial++ })),
  );

/** The items as `[k…]` for a batch and `|` for a commit point, easy to read in an expectation. */
function shape(items: readonly SourceItem[]): (string | (bigint | null)[])[] {
  return items.map((item) =>
    item.kind === "batch" ? batchToRows(item.batch).map((r) => r.k as bigint | null) : item.kind === "commit-point" ? "|" : "?",
  );
}

function run(batches: readonly RecordBatch[], bytes = (b: RecordBatch) => b.length * 10): SourceItem[] {
  const points = new CommitPoints(0);
  return batches.flatMap((b) => [...points.batch(b, bytes(b))]);
}

describe("CommitPoints", () => {
  it("splits a batch that continues the previous value at its last change of value", () => {
    expect(shape(run([batch(1n), batch(1n, 1n, 2n, 3n, 3n)]))).toEqual([[1n], [1n, 1n, 2n], "|", [3n, 3n]]);
  });

  it("leaves the first batch whole: the read's start needs no point", () => {
    expect(shape(run([batch(1n, 2n, 3n), batch(3n, 4n)]))).toEqual([[1n, 2n, 3n], [3n], "|", [4n]]);
  });

  it("puts a point between batches when the boundary is a change, without slicing", () => {
    const second = batch(2n, 2n);
    const items = run([batch(1n, 1n), second]);
    expect(shape(items)).toEqual([[1n, 1n], "|", [2n, 2n]]);
    expect((items[2] as { batch: RecordBatch }).batch).toBe(second);
  });

  it("never cuts a run of one value, however many batches it spans", () => {
    expect(shape(run([batch(5n, 5n), batch(5n), batch(5n, 5n, 5n)]))).toEqual([[5n, 5n], [5n], [5n, 5n, 5n]]);
  });

  it("treats NULL as a value of its own (they come first in a full read)", () => {
    expect(shape(run([batch(null, null), batch(null, 1n)]))).toEqual([[null, null], [null], "|", [1n]]);
  });

  it("offers no point before the first row", () => {
    expect(shape(run([batch(7n)]))).toEqual([[7n]]);
  });

  it("counts the bytes since the last point, sharing a split batch's bytes by rows", () => {
    const items = run([batch(1n, 1n), batch(1n, 1n, 2n, 2n)], (b) => b.length * 100);
    const points = items.filter((i) => i.kind === "commit-point");
    // 2 rows of the first batch (200) and 2 of the second (half of its 400).
    expect(points).toEqual([{ kind: "commit-point", bytesSinceLast: 400 }]);
  });

  it("gives a required point even with nothing since the last, and skips an optional one", () => {
    const points = new CommitPoints(0);
    const items = [...points.batch(batch(1n), 10), ...points.point(), ...points.point(), ...points.point({ required: true })];
    // After a point, a batch starting a new value needs none before it.
    items.push(...points.batch(batch(2n), 10));
    expect(items.filter((i) => i.kind === "commit-point")).toEqual([
      { kind: "commit-point", bytesSinceLast: 10 },
      { kind: "commit-point", bytesSinceLast: 0, required: true },
    ]);
  });

  it("keeps every row in order, puts points only between distinct values, and one in every later batch with a change", () => {
    const sorted = fc
      .array(fc.option(fc.bigInt({ min: 0n, max: 6n }), { nil: null, freq: 4 }), { maxLength: 40 })
      .map((keys) => keys.sort((a, b) => (a === null ? -1 : b === null ? 1 : a < b ? -1 : a > b ? 1 : 0)));
    fc.assert(
      fc.property(sorted, fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 10 }), (keys, sizes) => {
        const batches: RecordBatch[] = [];
        for (let at = 0, i = 0; at < keys.length; i++) {
          const size = sizes[i % sizes.length] as number;
          batches.push(batch(...keys.slice(at, at + size)));
          at += size;
        }
        const items = run(batches);
        const rows = items.flatMap((i) => (i.kind === "batch" ? batchToRows(i.batch) : []));
        expect(rows.map((r) => r.k)).toEqual(keys);
        expect(rows.map((r) => r.n)).toEqual(batches.flatMap((b) => batchToRows(b).map((r) => r.n)));
        let before: unknown = Symbol("start");
        let pointPending = false;
        let totalBytes = 0;
        for (const item of items) {
          if (item.kind === "commit-point") {
            pointPending = true;
            totalBytes += item.bytesSinceLast ?? 0;
            continue;
          }
          if (item.kind !== "batch") continue;
          const first = batchToRows(item.batch)[0]?.k;
          if (pointPending) expect(first).not.toBe(before);
          pointPending = false;
          before = batchToRows(item.batch).at(-1)?.k;
        }
        expect(pointPending).toBe(false);
        const unpointed = items.reduce((bytes, i) => (i.kind === "batch" ? bytes + i.batch.length * 10 : 0), 0);
        expect(totalBytes + unpointed).toBeCloseTo(keys.length * 10, 0);
        const changes = batches.filter((b, i) => {
          const ks = batchToRows(b).map((r) => r.k);
          const previous = i > 0 ? batchToRows(batches[i - 1] as RecordBatch).at(-1)?.k : ks[0];
          return i > 0 && [previous, ...ks].some((k, j, all) => j > 0 && k !== all[j - 1]);
        });
        expect(items.filter((i) => i.kind === "commit-point").length).toBe(changes.length);
      }),
    );
  });
});
