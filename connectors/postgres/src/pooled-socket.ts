import { Socket } from "node:net";
import { READ_BYTES, ReadBuffers } from "./read-buffers.js";

const BUFFERS = Symbol("sqlload.readBuffers");
const LENT = Symbol("sqlload.readsLent");
/** The shortest read lent as a view: a held buffer then carries at least a quarter of its size. */
const LENT_AT_LEAST = READ_BYTES / 4;

type PooledSocket = Socket & { [BUFFERS]?: ReadBuffers; [LENT]?: boolean };

/**
 * A socket for `pg` (its `stream` option) that reads into buffers it reuses (Node's documented
 * `onread`). While a COPY reader has it (`lendReads`), each read of 16 KB or more reaches the `data`
 * listener as a view of a reused buffer, which the reader gives back once nothing reads it;
 * otherwise the listener gets a copy, and the buffer is reused at once (`pg`'s parser keeps slices
 * of what it is given).
 * With `onread` nothing is buffered in the stream: a reader in paused mode (`readable`, `read()`,
 * as pg-copy-streams' `to` reads) gets nothing, so such a reader needs a socket of its own.
 */
export function pooledSocket(): Socket {
  const buffers = new ReadBuffers();
  const socket: PooledSocket = new Socket({
    onread: {
      buffer: () => buffers.take(),
      callback: (bytes: number, memory: Uint8Array) => {
        const chunk = (memory as Buffer).subarray(0, bytes);
        // A short read (a slow link) is copied, as Node would have copied it: lent, it would hold a
        // whole buffer for a few bytes until its batch is done.
        if (socket[LENT] && bytes >= LENT_AT_LEAST) socket.emit("data", chunk);
        else {
          const copy = Buffer.from(chunk);
          buffers.give(memory.buffer);
          socket.emit("data", copy);
        }
      },
    },
    // `onread` is in Node's documentation of `new net.Socket()` but not in its types.
  } as ConstructorParameters<typeof Socket>[0]);
  socket[BUFFERS] = buffers;
  return socket;
}

/** The reusable buffers of a socket `pooledSocket` made; undefined for any other stream. */
export function readBuffersOf(stream: object): ReadBuffers | undefined {
  return (stream as PooledSocket)[BUFFERS];
}

/** While `lent`, the socket's reads reach its `data` listener as views of its reused buffers. */
export function lendReads(stream: object, lent: boolean): void {
  if ((stream as PooledSocket)[BUFFERS]) (stream as PooledSocket)[LENT] = lent;
}
