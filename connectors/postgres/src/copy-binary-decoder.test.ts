import { batchFromRows, batchToRows, type Column } from "@sqlload/core";
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

/** A COPY stream of the rows, as the encoder writes it for a target with these columns. */
function copyStream(rows: Record<string, unknown>[]): Buffer {
  const batch = batchFromRows(COLUMNS.map(plain), rows);
  return Buffer.concat([HEADER, ...new CopyBinaryEncoder(COLUMNS, "t").encode(batch), TRAILER]);
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
          const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
          const decoder = new CopyBinaryDecoder(
            COLUMNS.map(plain),
            COLUMNS.map((c) => c.wire),
            { rows: batchRows },
          );
          const batches = [];
          let at = 0;
          for (const point of [...points, stream.length]) {
            batches.push(...decoder.push(stream.subarray(at, point)));
            at = point;
          }
          const rest = decoder.end();
          if (rest) batches.push(rest);
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
          const pieces = messageCuts
            ? cutAt(data, messageCuts)
            : [Buffer.concat([HEADER, rowBytes[0] as Buffer]), ...rowBytes.slice(1), TRAILER];
          const framed = Buffer.concat(pieces.map(frame));
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
            // comes decoded: a plain property, not a getter that decodes on first read.
            for (const b of batches.slice(1)) {
              const column = b.batch.columns[eager] as object;
              expect(Object.getOwnPropertyDescriptor(column, "values")?.get).toBeUndefined();
            }
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
