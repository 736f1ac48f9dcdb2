import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { lendReads, pooledSocket, readBuffersOf } from "./pooled-socket.js";
import type { ReadBuffers } from "./read-buffers.js";

/** What a pooled socket hands its `data` listener from a server that sends `send`'s pieces. */
async function received(
  lent: boolean,
  send: (peer: Socket) => Promise<void>,
): Promise<{ chunks: Buffer[]; buffers: ReadBuffers }> {
  const server = createServer((peer) => {
    void send(peer).then(() => peer.end());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const socket = pooledSocket();
  lendReads(socket, lent);
  const chunks: Buffer[] = [];
  // Kept as they come: nothing is given back here, so no buffer is read into again under them.
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.connect((server.address() as { port: number }).port, "127.0.0.1");
  await once(socket, "end");
  socket.destroy();
  server.close();
  return { chunks, buffers: readBuffersOf(socket) as ReadBuffers };
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
const bulk = Buffer.alloc(512 << 10, 7);

describe("pooledSocket", () => {
  it("lends long reads as views of its buffers, and copies short ones, which would hold a whole buffer", async () => {
    const { chunks, buffers } = await received(true, async (peer) => {
      peer.write(bulk);
      await pause();
      for (let i = 0; i < 20; i++) {
        peer.write(Buffer.alloc(100, i));
        await pause();
      }
    });
    expect(Buffer.concat(chunks).length).toBe(bulk.length + 2000);
    const views = chunks.filter((c) => buffers.owns(c.buffer));
    expect(views.length).toBeGreaterThan(0);
    expect(views.every((c) => c.length >= 16 << 10)).toBe(true);
    expect(chunks.filter((c) => c.length < 16 << 10).every((c) => !buffers.owns(c.buffer))).toBe(true);
  });

  it("gives copies when not lent", async () => {
    const { chunks, buffers } = await received(false, async (peer) => {
      peer.write(bulk);
    });
    expect(Buffer.concat(chunks).equals(bulk)).toBe(true);
    expect(chunks.some((c) => buffers.owns(c.buffer))).toBe(false);
  });
});
