import { describe, expect, it } from "vitest";
import { frame, unframe } from "../test/copy-messages.js";
import { CopyDataJoiner } from "./copy-data-joiner.js";

/** `count` rows of `width` bytes, row i filled with i, each in a CopyData message of its own. */
function rows(count: number, width: number, from = 0): Buffer {
  return Buffer.concat(Array.from({ length: count }, (_, i) => frame(Buffer.alloc(width, (from + i) % 251))));
}

/** The data of `part`, which must be exactly one CopyData message. */
function dataOfOne(part: Buffer): Buffer {
  expect(part[0]).toBe(0x64);
  expect(part.readInt32BE(1)).toBe(part.length - 1);
  return part.subarray(5);
}

describe("CopyDataJoiner", () => {
  it("joins a run of messages into one message of their data, leaving the run as it was", () => {
    const run = rows(1000, 58);
    const before = Buffer.from(run);
    const { part } = new CopyDataJoiner().join(run);
    expect(dataOfOne(part).equals(unframe(run))).toBe(true);
    expect(run.equals(before)).toBe(true);
  });

  it("joins messages of any width, up to a block's worth", () => {
    const widths = [0, 1, 4, 5, 13, 4096, 200_000, 3];
    const run = Buffer.concat(widths.map((w, i) => frame(Buffer.alloc(w, i + 1))));
    const { part } = new CopyDataJoiner().join(run);
    expect(dataOfOne(part).equals(unframe(run))).toBe(true);
  });

  it("joins runs of every length and width as they come, one after another in the same blocks", () => {
    const joiner = new CopyDataJoiner();
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    // A few parts in the socket at a time, sent in order, as a socket sends them.
    const unsent: { part: Buffer; expected: Buffer; sent: () => void }[] = [];
    for (let i = 0; i < 300; i++) {
      const run = Buffer.concat(Array.from({ length: 2 + random(400) }, () => frame(Buffer.alloc(random(90), random(256)))));
      unsent.push({ ...joiner.join(run), expected: unframe(run) });
      while (unsent.length > random(6)) {
        const { part, expected, sent } = unsent.shift() ?? expect.unreachable();
        expect(dataOfOne(part).equals(expected)).toBe(true);
        sent();
      }
    }
  });

  it("passes a single message, and anything that is not whole CopyData messages, as it is", () => {
    const joiner = new CopyDataJoiner();
    const one = frame(Buffer.from("row"));
    expect(joiner.join(one).part).toBe(one);
    const cut = rows(3, 10).subarray(0, 29);
    expect(joiner.join(cut).part).toBe(cut);
    const other = Buffer.concat([rows(2, 10), Buffer.from([0x63, 0, 0, 0, 4])]);
    expect(joiner.join(other).part).toBe(other);
    const short = Buffer.concat([rows(2, 10), Buffer.from([0x64, 0, 0, 0, 3])]);
    expect(joiner.join(short).part).toBe(short);
    // A run that still joins after those: they left nothing behind.
    const run = rows(4, 10);
    expect(dataOfOne(joiner.join(run).part).equals(unframe(run))).toBe(true);
  });

  it("sends a run larger than a block as it came", () => {
    const run = rows(2, 200_000);
    expect(new CopyDataJoiner().join(run).part).toBe(run);
  });

  it("never writes over a part the socket has not sent, and reuses blocks once it has", () => {
    const joiner = new CopyDataJoiner();
    const held: { part: Buffer; expected: Buffer; sent: () => void }[] = [];
    for (let i = 0; i < 40; i++) {
      const run = rows(500, 60, i * 500);
      held.push({ ...joiner.join(run), expected: unframe(run) });
    }
    // 40 runs of 32 kB: several blocks, none reused while a part of it is unsent.
    for (const { part, expected } of held) expect(dataOfOne(part).equals(expected)).toBe(true);
    const blockOf = (part: Buffer) => Math.floor(part.byteOffset / (256 << 10));
    const blocks = new Set(held.map((h) => blockOf(h.part)));
    expect(blocks.size).toBeGreaterThan(1);
    for (const h of held) h.sent();
    const again = joiner.join(rows(500, 60));
    expect(blocks.has(blockOf(again.part))).toBe(true);
  });

  it("sends runs as they came while every block waits in the socket, and joins again once one is sent", () => {
    const joiner = new CopyDataJoiner();
    const held = Array.from({ length: 80 }, (_, i) => {
      const run = rows(500, 60, i);
      return { run, ...joiner.join(run) };
    });
    // 8 blocks of 256 kB hold 64 joined runs of 32 kB; the rest went as they were.
    const joined = held.filter((h) => h.part !== h.run);
    expect(joined.length).toBe(64);
    for (const h of joined) expect(dataOfOne(h.part).equals(unframe(h.run))).toBe(true);
    for (const h of held.slice(0, 8)) h.sent();
    const run = rows(500, 60);
    expect(dataOfOne(joiner.join(run).part).equals(unframe(run))).toBe(true);
  });

  it("sends every run as it came where WebAssembly is not available", () => {
    const saved = Reflect.get(globalThis, "WebAssembly");
    Reflect.deleteProperty(globalThis, "WebAssembly");
    try {
      const run = rows(10, 10);
      expect(new CopyDataJoiner().join(run).part).toBe(run);
    } finally {
      Object.assign(globalThis, { WebAssembly: saved });
    }
  });
});
