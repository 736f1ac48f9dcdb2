import { type CursorValue, compareCursor, cursorAt, formatCursor, type LogicalType } from "@sqlload/core";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { batch, col, load, openSource, openTarget, t, tempProject } from "./harness.js";

// The planner compares cursors in JavaScript (compareCursor); DuckDB compares them in SQL. For
// random values of every cursor kind, both must order them the same way, or a run could skip or
// re-read rows at a boundary.
const project = tempProject();
afterAll(() => project.cleanup());

const text = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom("a", "B", "1", "\uE000", "\uFFFD", "\u{1F600}", "\u{10FFFF}", "é", "\u0301"),
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    ),
    maxLength: 6,
  })
  .filter((s) => !s.includes("\u0000"));

const kinds: { name: string; type: LogicalType; values: fc.Arbitrary<unknown>; cursor: (v: unknown) => CursorValue }[] = [
  { name: "text with astral characters", type: t("text"), values: text, cursor: (v) => ({ kind: "text", value: v as string }) },
  {
    name: "bigint beyond 2^53",
    type: t("int64"),
    values: fc.oneof(
      fc.bigInt({ min: 2n ** 53n - 5n, max: 2n ** 53n + 5n }),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    ),
    cursor: (v) => ({ kind: "integer", value: v as bigint }),
  },
  {
    name: "microsecond timestamps",
    type: t("timestamptz"),
    values: fc.oneof(
      fc.bigInt({ min: 1_700_000_000_000_000n, max: 1_700_000_000_000_010n }),
      fc.bigInt({ min: -(10n ** 15n), max: 10n ** 17n }),
    ),
    cursor: (v) => ({ kind: "timestamp", value: v as bigint }),
  },
];

describe("the planner's cursor order agrees with DuckDB's", () => {
  for (const [i, kind] of kinds.entries()) {
    it(kind.name, async () => {
      const target = await openTarget(project.dir, `order-${i}.duckdb`);
      const source = await openSource(project.dir, `order-${i}.duckdb`);
      try {
        let run = 0;
        await fc.assert(
          fc.asyncProperty(
            fc.uniqueArray(kind.values, { minLength: 2, maxLength: 40, selector: (v) => String(v) }),
            async (values) => {
              const ref = { schema: "raw", name: `t${run++}` };
              const columns = [col("v", kind.type)];
              await load(target, ref, columns, [
                batch(
                  columns,
                  values.map((v) => [v]),
                ),
              ]);
              // DuckDB's order: an ordered read of the table, and its max.
              const reader = await source.openTable(
                { table: { schema: "raw", name: ref.name, key: `raw.${ref.name}` }, cursorColumn: "v", options: {} },
                {
                  columns,
                  cursorKind: kind.cursor(values[0]).kind,
                },
              );
              const fromDuckDB: CursorValue[] = [];
              for await (const item of reader.read({
                range: {},
                includeNulls: true,
                ordered: true,
                signal: new AbortController().signal,
              })) {
                if (item.kind !== "batch") continue;
                for (let r = 0; r < item.batch.length; r++) fromDuckDB.push(cursorAt(item.batch, 0, r) as CursorValue);
              }
              await reader.close();
              const planner = values.map(kind.cursor).sort(compareCursor);
              expect(fromDuckDB.map(formatCursor)).toEqual(planner.map(formatCursor));
              const max = await target.maxCursor(ref, "v", planner[0]!.kind);
              expect(formatCursor(max as CursorValue)).toBe(formatCursor(planner.at(-1) as CursorValue));
            },
          ),
          { numRuns: 25 },
        );
      } finally {
        await source.close();
        await target.close();
      }
    });
  }
});
