import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CursorValue, compareCursor, maxCursor } from "../cursor/cursor-value.js";
import { BATCH_BYTES } from "./batch-bytes.js";
import type { Column } from "./logical-types.js";
import type { RecordBatch } from "./record-batch.js";
import { batchFromRows, columnCursorSpan, columnMaxCursor, cursorAt, RecordBatchBuilder, sliceBatch } from "./record-batch.js";

const naiveMax = (batch: ReturnType<typeof batchFromRows>): CursorValue | null => {
  let best: CursorValue | null = null;
  for (let i = 0; i < batch.length; i++) best = maxCursor(best, cursorAt(batch, 0, i));
  return best;
};

describe("columnMaxCursor", () => {
  it("agrees with comparing cursor values one by one, NULLs and astral text included", () => {
    const text: Column[] = [{ name: "k", type: { kind: "text" }, nullable: true }];
    const big: Column[] = [{ name: "k", type: { kind: "int64" }, nullable: true }];
    const ts: Column[] = [{ name: "k", type: { kind: "timestamptz" }, nullable: true }];
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.string({ unit: "binary", maxLength: 4 }), { nil: null }), { maxLength: 30 }),
        (values) => {
          const batch = batchFromRows(
            text,
            values.map((k) => ({ k })),
          );
          expect(columnMaxCursor(batch, 0)).toEqual(naiveMax(batch));
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null }), { maxLength: 30 }),
        (values) => {
          const intBatch = batchFromRows(
            big,
            values.map((k) => ({ k })),
          );
          expect(columnMaxCursor(intBatch, 0)).toEqual(naiveMax(intBatch));
          const tsBatch = batchFromRows(
            ts,
            values.map((k) => ({ k })),
          );
          expect(columnMaxCursor(tsBatch, 0)).toEqual(naiveMax(tsBatch));
        },
      ),
    );
  });
});

describe("a column's max from its source", () => {
  const date: Column[] = [{ name: "d", type: { kind: "date" }, nullable: true }];
  /** A column whose source gives its max, and whose values must not be read for it. */
  const withMax = (max: unknown): RecordBatch => {
    const batch = batchFromRows(date, [{ d: new Date(Date.UTC(2026, 0, 1)) }, { d: new Date(Date.UTC(2026, 0, 9)) }]);
    const column = batch.columns[0];
    return {
      ...batch,
      columns: [
        {
          get values(): ArrayLike<unknown> & Iterable<unknown> {
            throw new Error("values read");
          },
          nulls: column?.nulls,
          max: () => max,
        },
      ],
    };
  };

  it("is the batch's maximum, and its values are not read for it", () => {
    expect(columnMaxCursor(withMax(20_460), 0)).toEqual({ kind: "date", value: 20_460 });
    expect(columnMaxCursor(withMax(null), 0)).toBeNull();
  });

  it("is not carried by a slice, whose rows are fewer", () => {
    const batch = batchFromRows(date, [{ d: new Date(Date.UTC(2026, 0, 9)) }, { d: new Date(Date.UTC(2026, 0, 1)) }]);
    const [column] = batch.columns;
    const given: RecordBatch = { ...batch, columns: [{ values: column?.values ?? [], nulls: column?.nulls, max: () => 20_462 }] };
    const tail = sliceBatch(given, 1, 2);
    expect(tail.columns[0]?.max).toBeUndefined();
    expect(columnMaxCursor(tail, 0)).toEqual({ kind: "date", value: 20_454 });
  });
});

describe("columnCursorSpan", () => {
  const naiveMin = (batch: ReturnType<typeof batchFromRows>): CursorValue | null => {
    let best: CursorValue | null = null;
    for (let i = 0; i < batch.length; i++) {
      const v = cursorAt(batch, 0, i);
      if (v && (!best || compareCursor(v, best) < 0)) best = v;
    }
    return best;
  };
  const column = (kind: "text" | "int64"): Column[] => [{ name: "k", type: { kind }, nullable: true }];

  it("agrees with comparing cursor values one by one, and sees NULLs", () => {
    const texts = fc.array(fc.option(fc.string({ unit: "binary", maxLength: 4 }), { nil: null }), { maxLength: 30 });
    const integers = fc.array(fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null }), { maxLength: 30 });
    for (const [kind, values] of [
      ["text", texts],
      ["int64", integers],
    ] as const) {
      fc.assert(
        fc.property(values as fc.Arbitrary<unknown[]>, (keys) => {
          const batch = batchFromRows(
            column(kind),
            keys.map((k) => ({ k })),
          );
          expect(columnCursorSpan(batch, 0)).toEqual({ min: naiveMin(batch), max: naiveMax(batch), nulls: keys.includes(null) });
        }),
      );
    }
  });
});

describe("sliceBatch", () => {
  it("gives rows [start, end) of every column, NULLs included", () => {
    const schema: Column[] = [
      { name: "k", type: { kind: "int64" }, nullable: true },
      { name: "s", type: { kind: "text" }, nullable: false },
    ];
    const batch = batchFromRows(schema, [
      { k: 1n, s: "a" },
      { k: null, s: "b" },
      { k: 3n, s: "c" },
    ]);
    const slice = sliceBatch(batch, 1, 3);
    expect(slice.length).toBe(2);
    expect([cursorAt(slice, 0, 0), cursorAt(slice, 1, 1)]).toEqual([null, { kind: "text", value: "c" }]);
    expect(sliceBatch(batch, 0, 3)).toBe(batch);
  });

  it("keeps the rows' UTF-8 bytes and scaled integers the source gave, each row's own", () => {
    const schema: Column[] = [
      { name: "s", type: { kind: "text" }, nullable: true },
      { name: "d", type: { kind: "decimal", precision: 12, scale: 2 }, nullable: true },
    ];
    const text = ["é", null, "abc", "𝄞x"];
    const bytes = Buffer.from(text.map((t) => t ?? "").join(""));
    const lengths = text.map((t) => (t === null ? -1 : Buffer.byteLength(t)));
    const offsets = lengths.map((_, r) => lengths.slice(0, r).reduce((n, l) => n + Math.max(l, 0), 0));
    const batch: RecordBatch = {
      schema,
      length: 4,
      columns: [
        {
          values: text.map((t) => t ?? ""),
          nulls: Uint8Array.from(text.map((t) => (t === null ? 1 : 0))),
          utf8: () => ({
            buffers: [bytes],
            buffer: new Int32Array(4),
            offset: Int32Array.from(offsets),
            length: Int32Array.from(lengths),
          }),
        },
        {
          values: ["1.50", "2.00", "-0.10", "3.25"],
          scaled: (scale) => (scale === 2 ? Float64Array.from([150, 200, -10, 325]) : undefined),
        },
      ],
    };
    const slice = sliceBatch(batch, 1, 4);
    const fields = slice.columns[0]?.utf8?.();
    if (!fields) throw new Error("the slice lost the column's UTF-8 bytes");
    const decoded = [0, 1, 2].map((r) => {
      const length = fields.length[r] as number;
      if (length < 0) return null;
      const start = fields.offset[r] as number;
      return Buffer.from(fields.buffers[fields.buffer[r] as number] as Uint8Array)
        .subarray(start, start + length)
        .toString();
    });
    expect(decoded).toEqual([null, "abc", "𝄞x"]);
    expect([...(slice.columns[1]?.scaled?.(2) ?? [])]).toEqual([200, -10, 325]);
    expect(slice.columns[1]?.scaled?.(3)).toBeUndefined();
  });

  it("takes a column's values only when asked, as the batch's own are (a target may write the bytes instead)", () => {
    let decoded = 0;
    const batch: RecordBatch = {
      schema: [{ name: "s", type: { kind: "text" }, nullable: false }],
      length: 3,
      columns: [
        {
          get values() {
            decoded++;
            return ["a", "b", "c"];
          },
        },
      ],
    };
    const slice = sliceBatch(batch, 1, 3);
    expect(decoded).toBe(0);
    expect([...slice.columns[0]!.values]).toEqual(["b", "c"]);
    expect([...slice.columns[0]!.values]).toEqual(["b", "c"]);
    expect(decoded).toBe(1);
  });
});

describe("RecordBatchBuilder bytes", () => {
  const schema: Column[] = [
    { name: "id", type: { kind: "int64" }, nullable: false },
    { name: "t", type: { kind: "text" }, nullable: true },
    { name: "j", type: { kind: "json" }, nullable: true },
    { name: "b", type: { kind: "bytes" }, nullable: true },
    { name: "l", type: { kind: "list", element: { kind: "text" } }, nullable: true },
    { name: "n", type: { kind: "list", element: { kind: "int64" } }, nullable: true },
  ];

  it("counts text, json as its text, blobs, and list elements; not fixed-size columns or NULLs", () => {
    const builder = new RecordBatchBuilder(schema, 10);
    builder.append({ id: 1, t: "abcd", j: { a: 1 }, b: new Uint8Array(5), l: ["xy", null, "z"], n: [1n, 2n] });
    expect(builder.bytes).toBe(4 + '{"a":1}'.length + 5 + 3 + 16);
    builder.append({ id: 2 });
    expect(builder.bytes).toBe(4 + 7 + 5 + 3 + 16);
    builder.flush();
    expect(builder.bytes).toBe(0);
  });

  it("is full at maxBytes before its capacity, after the row that reaches them", () => {
    const builder = new RecordBatchBuilder(schema, 1000, 0, 100);
    const rows = [];
    while (!builder.full) {
      builder.append({ id: rows.length, t: "x".repeat(30) });
      rows.push(rows.length);
    }
    expect(rows.length).toBe(4);
    expect(builder.flush().length).toBe(4);
    expect(builder.full).toBe(false);
  });

  it("bounds its batches at BATCH_BYTES by default", () => {
    const builder = new RecordBatchBuilder(schema, 1_000_000);
    let rows = 0;
    while (!builder.full) {
      builder.append({ id: rows++, t: "y".repeat(64 * 1024) });
    }
    expect(rows).toBe(BATCH_BYTES / (64 * 1024));
  });
});

describe("RecordBatchBuilder errors", () => {
  it("names the row, column and an invalid Date as SL300", () => {
    const schema: Column[] = [{ name: "at", type: { kind: "timestamptz" }, nullable: true }];
    const builder = new RecordBatchBuilder(schema, 4, 10);
    builder.append({ at: new Date(0) });
    expect(() => builder.append({ at: new Date(Number.NaN) })).toThrow(
      expect.objectContaining({
        code: "SL300",
        message: expect.stringContaining('row 12, column "at": value Invalid Date does not fit'),
      }),
    );
  });

  it("names a value JSON.stringify cannot write (bigints inside, a cycle) as SL300, not a crash of the builder", () => {
    const schema: Column[] = [{ name: "t", type: { kind: "text" }, nullable: true }];
    const builder = new RecordBatchBuilder(schema, 4);
    expect(() => builder.append({ t: { id: 2n ** 62n + 1n } })).toThrow(
      expect.objectContaining({
        code: "SL300",
        message: expect.stringContaining('value {"id":4611686018427387905} does not fit'),
      }),
    );
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => builder.append({ t: cycle })).toThrow(
      expect.objectContaining({ code: "SL300", message: expect.stringContaining("value [object Object] does not fit") }),
    );
  });

  it("keeps a json value's bigints exact, and refuses a cycle with SL300", () => {
    const schema: Column[] = [{ name: "j", type: { kind: "json" }, nullable: true }];
    const batch = batchFromRows(schema, [{ j: { id: 2n ** 62n + 1n, tags: ["a"] } }]);
    expect(batch.columns[0]?.values[0]).toBe('{"id":4611686018427387905,"tags":["a"]}');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => batchFromRows(schema, [{ j: cycle }])).toThrow(expect.objectContaining({ code: "SL300" }));
  });
});
