import { batchFromRows, batchToRows, type Column, compareCodePoints } from "@sqlload/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { frame, unframe } from "../test/copy-messages.js";
import { pgColumn as pg } from "../test/pg-columns.js";
import { HEADER, TRAILER } from "./copy-binary.js";
import { CopyBinaryDecoder } from "./copy-binary-decoder.js";
import { CopyBinaryEncoder } from "./copy-binary-encoder.js";
import type { PgColumn } from "./postgres-dialect.js";

const COLUMNS: PgColumn[] = [
  pg("id", "int8"),
  pg("n", "int4"),
  pg("ok", "bool"),
  pg("price", "numeric"),
  pg("name", "text"),
  pg("at", "timestamptz"),
  pg("day", "date"),
  pg("blob", "bytea"),
  pg("tags", "_text", 25, "text"),
];

const plain = (c: PgColumn): Column => ({ name: c.name, type: c.type, nullable: true });

const row = fc.record({
  id: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
  n: fc.option(fc.integer()),
  ok: fc.option(fc.boolean()),
  price: fc.option(
    fc
      .tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.nat(9999))
      .map(([a, b]) => `${a}.${String(b).padStart(4, "0")}`),
  ),
  name: fc.option(fc.string({ unit: "grapheme" })),
  at: fc.option(fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n })),
  day: fc.option(fc.date({ min: new Date(-8e15), max: new Date(8e15), noInvalidDate: true })),
  blob: fc.option(fc.uint8Array()),
  tags: fc.option(fc.array(fc.option(fc.string()))),
});

function int32(n: number): number[] {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

/** A COPY stream of the rows, as the encoder writes it for a target with these columns. */
function copyStream(rows: Record<string, unknown>[]): Buffer {
  const batch = batchFromRows(COLUMNS.map(plain), rows);
  return Buffer.concat([HEADER, ...new CopyBinaryEncoder(COLUMNS, "t").encode(batch), TRAILER]);
}

/** The batches a decoder of `rows` rows each makes of `stream` pushed in chunks cut at `cuts` (taken modulo its length). */
function decodeCut(columns: PgColumn[], stream: Buffer, cuts: readonly number[], rows: number) {
  const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
  const decoder = new CopyBinaryDecoder(
    columns.map(plain),
    columns.map((c) => c.wire),
    { rows },
  );
  const batches = [];
  let at = 0;
  for (const point of [...points, stream.length]) {
    batches.push(...decoder.push(stream.subarray(at, point)));
    at = point;
  }
  const rest = decoder.end();
  if (rest) batches.push(rest);
  return batches;
}

describe("CopyBinaryDecoder", () => {
  it("decodes what the encoder wrote, however the stream is cut into chunks", () => {
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 1, max: 7 }),
        (rows, cuts, batchRows) => {
          const stream = copyStream(rows);
          const batches = decodeCut(COLUMNS, stream, cuts, batchRows);
          expect(batches.every((b) => b.batch.length <= batchRows)).toBe(true);
          // The bytes kept for each batch are exactly its rows.
          expect(Buffer.concat([HEADER, ...batches.flatMap((b) => b.raw), TRAILER]).equals(stream)).toBe(true);
          const decoded = batches.flatMap((b) => batchToRows(b.batch));
          const expected = batchToRows(batchFromRows(COLUMNS.map(plain), rows));
          expect(decoded.map(normalize)).toEqual(expected.map(normalize));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("gives text and jsonb columns as the UTF-8 bytes they came in, however the stream is cut", () => {
    const columns = [pg("id", "int4"), pg("name", "text"), pg("doc", "jsonb"), pg("note", "text")];
    const plainColumns = columns.map(plain);
    const textRow = fc.record({
      id: fc.integer(),
      name: fc.option(fc.string({ unit: "binary", maxLength: 40 })),
      doc: fc.option(fc.json().map((j) => JSON.stringify(JSON.parse(j)))),
      note: fc.option(fc.string({ unit: "grapheme-ascii", maxLength: 14 })),
    });
    const utf8 = new TextDecoder("utf-8", { fatal: true });
    fc.assert(
      fc.property(
        fc.array(textRow, { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 1, max: 7 }),
        fc.boolean(),
        (rows, cuts, batchRows, othersFirst) => {
          const batch = batchFromRows(plainColumns, rows);
          const stream = Buffer.concat([HEADER, ...new CopyBinaryEncoder(columns, "t").encode(batch), TRAILER]);
          const batches = decodeCut(columns, stream, cuts, batchRows);
          let offset = 0;
          for (const { batch: decoded } of batches) {
            expect(decoded.columns[0]?.utf8).toBeUndefined();
            // The first column read steps over the others; later ones use the noted places.
            if (othersFirst) void decoded.columns[0]?.values;
            for (const c of [1, 2, 3]) {
              const column = decoded.columns[c];
              const fields = column?.utf8?.();
              expect(fields).toBeDefined();
              const name = plainColumns[c]?.name as string;
              // NULLs from the bytes, before any value is decoded.
              const nulls = column?.nulls;
              for (let r = 0; r < decoded.length; r++) {
                const want = (rows[offset + r] as Record<string, unknown>)[name] ?? null;
                const length = fields?.length[r] as number;
                expect(nulls?.[r] === 1).toBe(want === null);
                if (want === null) {
                  expect(length).toBe(-1);
                  continue;
                }
                const bytes = fields?.buffers[fields.buffer[r] as number] as Uint8Array;
                const start = fields?.offset[r] as number;
                expect(utf8.decode(bytes.subarray(start, start + length))).toBe(want);
              }
              expect(batchToRows(decoded).map((row) => row[name])).toEqual(
                rows.slice(offset, offset + decoded.length).map((row) => (row as Record<string, unknown>)[name] ?? null),
              );
            }
            offset += decoded.length;
          }
          expect(offset).toBe(rows.length);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("gives no bytes for text that is not UTF-8 (a SQL_ASCII database), and decodes it as before", () => {
    const columns = [pg("name", "text")];
    const field = (bytes: number[]) => [...int32(bytes.length), ...bytes];
    const rows = [
      [0, 1, ...field([0x61, 0x62])],
      [0, 1, ...field([0x63, 0xff, 0x64])],
    ];
    const stream = Buffer.concat([HEADER, Buffer.from(rows.flat()), TRAILER]);
    const decoder = new CopyBinaryDecoder(
      columns.map(plain),
      columns.map((c) => c.wire),
    );
    const batch = [...decoder.push(stream), decoder.end()].find((b) => b)?.batch;
    expect(batch?.columns[0]?.utf8?.()).toBeUndefined();
    expect([...(batch?.columns[0]?.values ?? [])]).toEqual(["ab", "c\ufffdd"]);
  });

  it("gives numeric columns as scaled integers without decoding them, or nothing when a value has none", () => {
    const columns = [pg("id", "int4"), pg("price", "numeric")];
    const decodeRows = (prices: (string | null)[]) => {
      const rows = prices.map((price, id) => ({ id, price }));
      const stream = Buffer.concat([
        HEADER,
        ...new CopyBinaryEncoder(columns, "t").encode(batchFromRows(columns.map(plain), rows)),
        TRAILER,
      ]);
      const decoder = new CopyBinaryDecoder(
        columns.map(plain),
        columns.map((c) => c.wire),
      );
      return [...decoder.push(stream), decoder.end()].find((b) => b);
    };
    const decoded = decodeRows(["12.50", null, "-0.01", "1234567890123.4"]);
    const price = decoded?.batch.columns[1];
    expect([...(price?.scaled?.(2) ?? [])]).toEqual([1250, Number.NaN, -1, 123456789012340]);
    // The NULLs come from where the fields lie, not from decoding the values.
    expect([...(price?.nulls ?? [])]).toEqual([0, 1, 0, 0]);
    // Scale 1 would round -0.01: no scaled form, and the strings are still there.
    expect(price?.scaled?.(1)).toBeUndefined();
    expect([0, 2, 3].map((r) => price?.values[r])).toEqual(["12.50", "-0.01", "1234567890123.4"]);
    expect(decoded?.batch.columns[0]?.scaled).toBeUndefined();
    decoded?.expire();
    expect(() => price?.scaled?.(2)).toThrow(/read after the next item was asked for/);
  });

  it("refuses the bytes of a batch once it expired, as its values", () => {
    const columns = [pg("name", "text")];
    const stream = Buffer.concat([HEADER, Buffer.from([0, 1, ...int32(1), 0x61]), TRAILER]);
    const decoder = new CopyBinaryDecoder(
      columns.map(plain),
      columns.map((c) => c.wire),
    );
    const decoded = [...decoder.push(stream), decoder.end()].find((b) => b);
    decoded?.expire();
    expect(() => decoded?.batch.columns[0]?.utf8?.()).toThrow(/read after the next item was asked for/);
  });

  it("refuses the bytes of an expired batch even when they were asked for before it expired", () => {
    const columns = [pg("name", "text")];
    const stream = Buffer.concat([HEADER, Buffer.from([0, 1, ...int32(5), ...Buffer.from("hello")]), TRAILER]);
    const decoder = new CopyBinaryDecoder(
      columns.map(plain),
      columns.map((c) => c.wire),
    );
    const decoded = [...decoder.push(stream), decoder.end()].find((b) => b);
    const fields = decoded?.batch.columns[0]?.utf8?.();
    expect(fields?.length[0]).toBe(5);
    decoded?.expire();
    expect(() => decoded?.batch.columns[0]?.utf8?.()).toThrow(/read after the next item was asked for/);
  });

  it("walks CopyData messages, passing Postgres's one-row messages on as slices of the chunks", () => {
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 1, max: 7 }),
        fc.option(fc.array(fc.nat(), { minLength: 1, maxLength: 10 }), { nil: undefined }),
        fc.option(fc.nat(COLUMNS.length - 1), { nil: undefined }),
        (rows, cuts, batchRows, messageCuts, eager) => {
          const rowBytes = rows.map((r) => copyRows([r]));
          // As Postgres sends it: the file header with the first row, then a message per row and one
          // for the trailer; or, with messageCuts, messages cut anywhere (rows spanning messages).
          const data = Buffer.concat([HEADER, ...rowBytes, TRAILER]);
          const framed = Buffer.concat(messageCuts ? cutAt(data, messageCuts).map(frame) : messagesAsSent(rowBytes));
          const decoder = new CopyBinaryDecoder(
            COLUMNS.map(plain),
            COLUMNS.map((c) => c.wire),
            { rows: batchRows, framed: true, eager },
          );
          const chunks = cutAt(framed, cuts);
          const batches = chunks.flatMap((chunk) => decoder.push(chunk));
          const rest = decoder.end();
          if (rest) batches.push(rest);
          expect(batches.every((b) => b.batch.length <= batchRows)).toBe(true);
          const raw = batches.flatMap((b) => b.raw);
          expect(unframe(Buffer.concat(raw)).equals(Buffer.concat(rowBytes))).toBe(true);
          if (!messageCuts && chunks.length === 1) {
            // Only the first row (sent with the file header) is framed anew; the rest are views.
            expect(raw.slice(1).every((part) => part.buffer === chunks[0]?.buffer)).toBe(true);
          }
          if (eager !== undefined && !messageCuts) {
            // Past the first batch (whose first row came with the file header), the eager column
            // comes decoded: its maximum is known without decoding it again.
            for (const b of batches.slice(1)) expect(b.batch.columns[eager]?.max).toBeTypeOf("function");
          }
          // The last column read first finds its fields by stepping over the others.
          for (const b of batches) void b.batch.columns[COLUMNS.length - 1]?.values;
          const decoded = batches.flatMap((b) => batchToRows(b.batch));
          expect(decoded.map(normalize)).toEqual(batchToRows(batchFromRows(COLUMNS.map(plain), rows)).map(normalize));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("fills later batches' arrays with expired ones', while every value read stays as it was", () => {
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom(0, 1, 4, 5, 6),
        fc.nat(3),
        (rows, cuts, batchRows, eager, kept) => {
          const rowBytes = rows.map((r) => copyRows([r]));
          const framed = Buffer.concat(messagesAsSent(rowBytes));
          const decoder = new CopyBinaryDecoder(
            COLUMNS.map(plain),
            COLUMNS.map((c) => c.wire),
            { rows: batchRows, framed: true, eager },
          );
          // As a read does (ChunkLedger): each batch read, then expired once a later one is asked
          // for, the `kept` newest only at the end. Every value read stays valid (SourceItem).
          const read: { values: ArrayLike<unknown>[]; copies: unknown[][] }[] = [];
          const decodedRows: Record<string, unknown>[] = [];
          const pending: { expire(): void }[] = [];
          const take = (decoded: ReturnType<CopyBinaryDecoder["push"]>) => {
            for (const b of decoded) {
              const cursor = b.batch.columns[eager];
              const max = cursor?.max?.();
              decodedRows.push(...batchToRows(b.batch));
              const values = b.batch.columns.map((c) => c.values);
              read.push({ values, copies: values.map((v) => Array.from(v)) });
              if (cursor?.max) expect(max).toEqual(naiveMax(cursor.values, cursor.nulls));
              pending.push(b);
              while (pending.length > kept) pending.shift()?.expire();
            }
          };
          for (const chunk of cutAt(framed, cuts)) take(decoder.push(chunk));
          const rest = decoder.end();
          if (rest) take([rest]);
          for (const batch of read) expect(batch.values.map((v) => Array.from(v))).toEqual(batch.copies);
          expect(decodedRows.map(normalize)).toEqual(batchToRows(batchFromRows(COLUMNS.map(plain), rows)).map(normalize));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("walks an expired batch's row index again for a later batch instead of allocating one", () => {
    const columns = [pg("name", "text")];
    const rowBytes = Array.from({ length: 16 }, (_, i) => {
      const text = Buffer.from(`row ${i}`);
      return Buffer.from([0, 1, ...int32(text.length), ...text]);
    });
    const messages = messagesAsSent(rowBytes);
    const decode = (expire: boolean) => {
      const decoder = new CopyBinaryDecoder(
        columns.map(plain),
        columns.map((c) => c.wire),
        { rows: 4, framed: true },
      );
      const indexes: ArrayBufferLike[] = [];
      const names: unknown[] = [];
      for (const message of messages) {
        for (const b of decoder.push(message)) {
          indexes.push(b.batch.columns[0]?.utf8?.()?.buffer.buffer as ArrayBufferLike);
          names.push(...(b.batch.columns[0]?.values ?? []));
          if (expire) b.expire();
        }
      }
      expect(decoder.end()).toBeUndefined();
      expect(names).toEqual(Array.from({ length: 16 }, (_, i) => `row ${i}`));
      return indexes;
    };
    // None expired: each batch has its own.
    expect(new Set(decode(false)).size).toBe(4);
    // Each expired as soon as read. A batch is begun as the one before it ends, so the third walks
    // the first's index and the fourth the second's.
    const indexes = decode(true);
    expect(indexes[1]).not.toBe(indexes[0]);
    expect(indexes[2]).toBe(indexes[0]);
    expect(indexes[3]).toBe(indexes[1]);
  });

  it("refuses framed data that is not CopyData or stops inside a message", () => {
    const framed = frame(copyStream([{ id: 1n }]));
    const decoder = () =>
      new CopyBinaryDecoder(
        COLUMNS.map(plain),
        COLUMNS.map((c) => c.wire),
        { framed: true },
      );
    const notData = Buffer.from(framed);
    notData[0] = 0x43;
    expect(() => decoder().push(notData)).toThrow(/type 67/);
    const cut = decoder();
    cut.push(framed.subarray(0, framed.length - 1));
    expect(() => cut.end()).toThrow(/inside a CopyData message/);
  });

  it("refuses a stream that ends inside a row or without its trailer", () => {
    const stream = copyStream([{ id: 1n, name: "x" }]);
    const cut = new CopyBinaryDecoder(
      COLUMNS.map(plain),
      COLUMNS.map((c) => c.wire),
    );
    cut.push(stream.subarray(0, stream.length - 5));
    expect(() => cut.end()).toThrow(/inside a row/);
    const noTrailer = new CopyBinaryDecoder(
      COLUMNS.map(plain),
      COLUMNS.map((c) => c.wire),
    );
    noTrailer.push(stream.subarray(0, stream.length - 2));
    expect(() => noTrailer.end()).toThrow(/trailer/);
  });
});

/** Rows as the encoder writes them, without file header or trailer. */
function copyRows(rows: Record<string, unknown>[]): Buffer {
  return Buffer.concat(new CopyBinaryEncoder(COLUMNS, "t").encode(batchFromRows(COLUMNS.map(plain), rows)));
}

/** The largest non-NULL value, strings by code point, found by sorting: null when there is none. */
function naiveMax(values: ArrayLike<unknown>, nulls: Uint8Array | undefined): unknown {
  const present = Array.from(values).filter((_, r) => nulls?.[r] !== 1);
  const order = (a: unknown, b: unknown) =>
    typeof a === "string" ? compareCodePoints(a, b as string) : (a as number) < (b as number) ? -1 : a === b ? 0 : 1;
  return present.length === 0 ? null : present.sort(order).at(-1);
}

/** The CopyData messages Postgres sends for rows: the file header with the first, then one per row, then the trailer. */
function messagesAsSent(rowBytes: readonly Buffer[]): Buffer[] {
  return [Buffer.concat([HEADER, rowBytes[0] as Buffer]), ...rowBytes.slice(1), TRAILER].map(frame);
}

/** `buf` cut at the given points (taken modulo its length). */
function cutAt(buf: Buffer, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let at = 0;
  for (const point of [...points, buf.length]) {
    if (point > at) out.push(Buffer.from(buf.subarray(at, point)));
    at = point;
  }
  return out;
}

/** Uint8Array subclasses and views compare by content. */
function normalize(r: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Uint8Array ? [...v] : v]));
}
