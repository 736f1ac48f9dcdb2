import { describe, expect, it } from "vitest";
import { READ_BYTES, ReadBuffers } from "./read-buffers.js";

describe("ReadBuffers", () => {
  it("gives a read a buffer given back before, and never one buffer to two reads", () => {
    const buffers = new ReadBuffers();
    const first = buffers.take();
    const second = buffers.take();
    expect(first.buffer).not.toBe(second.buffer);
    expect(first.length).toBe(READ_BYTES);
    buffers.give(first.buffer);
    buffers.give(first.buffer); // twice: still one read's
    expect(buffers.take().buffer).toBe(first.buffer);
    expect(buffers.take().buffer).not.toBe(first.buffer);
  });

  it("keeps 64 buffers for reuse; a read beyond them gets one that is collected as before", () => {
    const buffers = new ReadBuffers();
    const taken = Array.from({ length: 70 }, () => buffers.take());
    expect(taken.filter((b) => buffers.owns(b.buffer))).toHaveLength(64);
    const extra = taken[69] as Buffer;
    buffers.give(extra.buffer);
    expect(buffers.take().buffer).not.toBe(extra.buffer);
    buffers.give(Buffer.alloc(8).buffer); // not this socket's: ignored
    expect(buffers.take().length).toBe(READ_BYTES);
  });
});
