import { batchFromRows, batchToRows, type Column } from "@sqlload/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HEADER, TRAILER } from "./copy-binary.js";
import { CopyBinaryDecoder } from "./copy-binary-decoder.js";
import { CopyBinaryEncoder } from "./copy-binary-encoder.js";
import { mapColumn, type PgColumn } from "./postgres-dialect.js";

const pg = (name: string, typeName: string, elementOid: number | null = null, elementName: string | null = null): PgColumn =>
  mapColumn({
    name,
    notNull: false,
    declared: typeName,
    typeName,
    typeType: "b",
    typmod: -1,
    elementName,
    elementType: elementName ? "b" : null,
    elementOid,
    collation: null,
  });

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

/** Uint8Array subclasses and views compare by content. */
function normalize(r: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Uint8Array ? [...v] : v]));
}
