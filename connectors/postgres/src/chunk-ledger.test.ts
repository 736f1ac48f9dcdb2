import { batchFromRows, batchToRows, type Column, isSqlloadError } from "@sqlload/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { frame, unframe } from "../test/copy-messages.js";
import { pgColumn as pg } from "../test/pg-columns.js";
import { ChunkLedger, decodeReleasing } from "./chunk-ledger.js";
import { HEADER, TRAILER } from "./copy-binary.js";
import { CopyBinaryDecoder, type DecodedBatch } from "./copy-binary-decoder.js";
import { CopyBinaryEncoder } from "./copy-binary-encoder.js";
import { READ_BYTES, ReadBuffers } from "./read-buffers.js";

const COLUMNS = [pg("id", "int8"), pg("name", "text"), pg("price", "numeric"), pg("blob", "bytea")];
const SCHEMA: Column[] = COLUMNS.map((c) => ({ name: c.name, type: c.type, nullable: true }));

const row = fc.record({
  id: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
  name: fc.option(fc.string({ maxLength: 300 })),
  price: fc.option(fc.integer().map((n) => `${n}.25`)),
  blob: fc.option(fc.uint8Array({ maxLength: 200 })),
});

/** Reused buffers that are overwritten the moment they are given back, as a later read would. */
class OverwrittenBuffers extends ReadBuffers {
  /** Every buffer a read was given. */
  readonly used = new Set<ArrayBufferLike>();
  override take(): Buffer {
    const buffer = super.take();
    this.used.add(buffer.buffer);
    return buffer;
  }
  override give(memory: ArrayBufferLike): void {
    if (this.owns(memory)) new Uint8Array(memory).fill(0xab);
    super.give(memory);
  }
}

/**
 * Postgres's framing: the file header with the first row, then a message per row, then the
 * trailer; or, with `messageEnds`, messages ending anywhere (rows spanning messages).
 */
function messages(rows: Record<string, unknown>[], messageEnds?: readonly number[]): { framed: Buffer; rowBytes: Buffer } {
  const rowBytes = rows.map((r) => Buffer.concat(new CopyBinaryEncoder(COLUMNS, "t").encode(batchFromRows(SCHEMA, [r]))));
  const data = Buffer.concat([HEADER, ...rowBytes, TRAILER]);
  const pieces = messageEnds
    ? readEnds(data, messageEnds).map(([from, to]) => data.subarray(from, to))
    : [...(rows.length > 0 ? [Buffer.concat([HEADER, rowBytes[0] as Buffer]), ...rowBytes.slice(1)] : [HEADER]), TRAILER];
  return { framed: Buffer.concat(pieces.map(frame)), rowBytes: Buffer.concat(rowBytes) };
}

/** Where socket reads of `stream` would end: at the cuts, and at most READ_BYTES apart. */
function readEnds(stream: Buffer, cuts: readonly number[]): [number, number][] {
  const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
  const out: [number, number][] = [];
  let at = 0;
  for (const point of [...points, stream.length]) {
    for (let from = at; from < point; from += READ_BYTES) out.push([from, Math.min(point, from + READ_BYTES)]);
    at = point;
  }
  return out;
}

/** The stream as socket reads into `buffers`: each read lands in a buffer of its own. */
async function* reads(stream: Buffer, cuts: readonly number[], buffers: ReadBuffers): AsyncGenerator<Buffer> {
  for (const [from, to] of readEnds(stream, cuts)) {
    const buffer = buffers.take();
    stream.copy(buffer, 0, from, to);
    yield buffer.subarray(0, to - from);
  }
}

function normalize(r: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Uint8Array ? [...v] : v]));
}

describe("ChunkLedger", () => {
  it("gives back every buffer taken before the oldest still held, and only those", () => {
    const buffers = new ReadBuffers();
    const given: ArrayBufferLike[] = [];
    const give = buffers.give.bind(buffers);
    buffers.give = (memory) => {
      given.push(memory);
      give(memory);
    };
    const ledger = new ChunkLedger(() => buffers);
    const [a, b, c] = [buffers.take(), buffers.take(), buffers.take()] as [Buffer, Buffer, Buffer];
    for (const chunk of [a, b, c]) ledger.took(chunk.subarray(0, 10));
    ledger.took(Buffer.alloc(10)); // not one of the socket's: never given
    ledger.release([c.buffer, b.buffer]);
    expect(given).toEqual([a.buffer]);
    ledger.release([c.buffer]);
    expect(given).toEqual([a.buffer, b.buffer]);
    ledger.release([]);
    expect(given).toEqual([a.buffer, b.buffer, c.buffer]);
  });

  it("decodes every batch right while the buffers its rows came in are overwritten once given back", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 120 }),
        fc.array(fc.nat(), { maxLength: 60 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 64, max: 4096 }),
        fc.option(fc.array(fc.nat(), { minLength: 1, maxLength: 30 }), { nil: undefined }),
        async (rows, cuts, batchRows, batchBytes, messageEnds) => {
          const { framed, rowBytes } = messages(rows, messageEnds);
          const buffers = new OverwrittenBuffers();
          const decoder = new CopyBinaryDecoder(
            SCHEMA,
            COLUMNS.map((c) => c.wire),
            { rows: batchRows, bytes: batchBytes, framed: true, eager: 0 },
          );
          const decoded: Record<string, unknown>[] = [];
          const raw: Buffer[] = [];
          // As the engine and a target do: everything read from a batch before the next is asked for.
          for await (const batch of decodeReleasing(reads(framed, cuts, buffers), decoder, new ChunkLedger(() => buffers))) {
            decoded.push(...batchToRows(batch.batch));
            raw.push(Buffer.concat(batch.raw));
          }
          expect(decoded.map(normalize)).toEqual(batchToRows(batchFromRows(SCHEMA, rows)).map(normalize));
          expect(unframe(Buffer.concat(raw)).equals(rowBytes)).toBe(true);
          // Reads far more than a batch used some buffers again.
          const count = readEnds(framed, cuts).length;
          if (count > 4 * batchRows + 8) expect(buffers.used.size).toBeLessThan(count);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("refuses to decode a column of a batch after the next item was asked for", async () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ id: BigInt(i), name: `row ${i}`, price: "1.25", blob: null }));
    const buffers = new OverwrittenBuffers();
    const decoder = new CopyBinaryDecoder(
      SCHEMA,
      COLUMNS.map((c) => c.wire),
      { rows: 10, framed: true },
    );
    const seen: DecodedBatch[] = [];
    for await (const batch of decodeReleasing(
      reads(messages(rows).framed, [100, 900, 1500], buffers),
      decoder,
      new ChunkLedger(() => buffers),
    )) {
      void batch.batch.columns[0]?.values; // read while it lives: stays readable
      seen.push(batch);
    }
    expect(seen.length).toBe(5);
    const ids = (seen[0] as DecodedBatch).batch.columns[0]?.values as BigInt64Array;
    expect(ids[3]).toBe(3n);
    let error: unknown;
    try {
      void seen[0]?.batch.columns[1]?.values;
    } catch (e) {
      error = e;
    }
    expect(isSqlloadError(error) && error.code).toBe("SL900");
  });
});
