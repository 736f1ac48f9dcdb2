import { COPY_DATA } from "./copy-binary.js";

const HEADER_BYTES = 5; // type byte, then an int32 length that counts itself
const BLOCK_BYTES = 256 << 10;

/** A buffer the joiner writes into, reused once the socket has sent every part cut from it. */
interface Block {
  readonly buffer: Buffer;
  used: number;
  /** Parts cut from it that the socket has not sent yet. */
  unsent: number;
}

/**
 * Joins a run of whole CopyData messages into one message. Postgres sends `COPY … TO STDOUT` as
 * one message per row, and a `COPY … FROM STDIN` backend pays for every message it reads (a round
 * of its message loop and two copies), which on a busy target costs more than joining them here.
 * The messages are copied into blocks of the joiner's own, never joined in place: the run is a view
 * of a socket read, which the batch that holds it may still read.
 *
 * `join` returns the part to write and `sent`, to call once the socket has sent it, which frees
 * its block for reuse; blocks are few (about the bytes that wait in the socket).
 */
export class CopyDataJoiner {
  private current: Block | undefined;
  private readonly free: Block[] = [];

  /**
   * One message holding the rows of `run` (whole CopyData messages, back to back); the run itself
   * when it is a single message, or anything else (left for the server to judge).
   */
  join(run: Buffer): { readonly part: Buffer; readonly sent: () => void } {
    if (run.length <= HEADER_BYTES) return { part: run, sent: noop };
    const block = this.blockFor(run.length);
    const start = block.used;
    const end = start + run.length;
    const buffer = block.buffer;
    run.copy(buffer, start);
    // Each message's data moves down over the headers before it, never past its own end, so the
    // next header is still there to read; the first message's data stays where it is.
    let to = start + HEADER_BYTES;
    let at = start;
    let count = 0;
    while (at + HEADER_BYTES <= end) {
      const length = buffer.readInt32BE(at + 1);
      const next = at + 1 + length;
      if (buffer[at] !== COPY_DATA || length < 4 || next > end) break;
      if (to !== at + HEADER_BYTES) buffer.copyWithin(to, at + HEADER_BYTES, next);
      to += length - 4;
      at = next;
      count++;
    }
    if (at !== end || count < 2) return { part: run, sent: noop };
    buffer[start] = COPY_DATA;
    buffer.writeInt32BE(to - start - 1, start + 1);
    block.used = to;
    block.unsent++;
    return { part: buffer.subarray(start, to), sent: () => this.sent(block) };
  }

  private blockFor(bytes: number): Block {
    const current = this.current;
    if (current && current.buffer.length - current.used >= bytes) return current;
    if (current) this.retire(current);
    const reused = bytes <= BLOCK_BYTES ? this.free.pop() : undefined;
    const block = reused ?? { buffer: Buffer.allocUnsafeSlow(Math.max(BLOCK_BYTES, bytes)), used: 0, unsent: 0 };
    this.current = block;
    return block;
  }

  private sent(block: Block): void {
    block.unsent--;
    if (block !== this.current && block.unsent === 0) this.retire(block);
  }

  /** A block no part is written into any more: free once every part of it is sent. */
  private retire(block: Block): void {
    if (block === this.current) this.current = undefined;
    if (block.unsent > 0) return;
    block.used = 0;
    // A block made for one large run, and more free blocks than a load keeps in flight, are left
    // to the collector.
    if (this.free.length < 8 && block.buffer.length === BLOCK_BYTES) this.free.push(block);
  }
}

function noop(): void {}
