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

  it("joins messages of any width, a run larger than a block too", () => {
    const widths = [0, 1, 4, 5, 13, 4096, 300_000];
    const run = Buffer.concat(widths.map((w, i) => frame(Buffer.alloc(w, i + 1))));
    const { part } = new CopyDataJoiner().join(run);
    expect(dataOfOne(part).equals(unframe(run))).toBe(true);
  });

  it("passes a single message, and anything that is not whole CopyData messages, as it is", () => {
    const joiner = new CopyDataJoiner();
    const one = frame(Buffer.from("row"));
    expect(joiner.join(one).part).toBe(one);
    const cut = rows(3, 10).subarray(0, 29);
    expect(joiner.join(cut).part).toBe(cut);
    const other = Buffer.concat([rows(2, 10), Buffer.from([0x63, 0, 0, 0, 4])]);
    expect(joiner.join(other).part).toBe(other);
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
    const blocks = new Set(held.map((h) => h.part.buffer));
    expect(blocks.size).toBeGreaterThan(1);
    for (const h of held) h.sent();
    const again = joiner.join(rows(500, 60));
    expect(blocks.has(again.part.buffer)).toBe(true);
  });
});
