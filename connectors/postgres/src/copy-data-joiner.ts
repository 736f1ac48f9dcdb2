import { COPY_DATA } from "./copy-binary.js";
import { type Compactor, createCompactor } from "./copy-data-compactor.js";

const HEADER_BYTES = 5; // type byte, then an int32 length that counts itself
const BLOCK_BYTES = 256 << 10;
/** Blocks of the joiner's memory: more than the bytes a load lets wait in the socket (CopyInQuery's 1 MB). */
const BLOCKS = 8;

/** A part of the joiner's memory, reused once the socket has sent every part cut from it. */
interface Block {
  readonly buffer: Buffer;
  /** Where `buffer` starts in the compactor's memory. */
  readonly offset: number;
  used: number;
  /** Parts cut from it that the socket has not sent yet. */
  unsent: number;
}

/**
 * Joins a run of whole CopyData messages into one message. Postgres sends `COPY … TO STDOUT` as
 * one message per row, and a `COPY … FROM STDIN` backend pays for every message it reads (a round
 * of its message loop and two copies), which on a busy target costs more than joining them here.
 * The messages are copied into blocks of the joiner's own, never joined in place: the run is a view
 * of a socket read, which the batch that holds it may still read. The rows move together in
 * WebAssembly (copy-data-compactor.ts), so the blocks are parts of its memory.
 *
 * `join` returns the part to write and `sent`, to call once the socket has sent it, which frees
 * its block for reuse. A run larger than a block, or one arriving while every block waits in the
 * socket, is sent as it came: valid to the server, only dearer for it.
 */
export class CopyDataJoiner {
  private readonly compactor = createCompactor(BLOCKS * BLOCK_BYTES);
  private current: Block | undefined;
  private readonly free: Block[] = [];
  private made = 0;

  /**
   * One message holding the rows of `run` (whole CopyData messages, back to back); the run itself
   * when it is a single message, or anything else (left for the server to judge).
   */
  join(run: Buffer): { readonly part: Buffer; readonly sent: () => void } {
    const compactor = this.compactor;
    if (run.length <= HEADER_BYTES || !compactor) return { part: run, sent: noop };
    const block = this.blockFor(run.length, compactor);
    if (!block) return { part: run, sent: noop };
    const start = block.used;
    run.copy(block.buffer, start);
    const moved = compactor.compact(block.offset + start, block.offset + start + run.length);
    if (moved < 0) return { part: run, sent: noop };
    const to = moved - block.offset;
    block.buffer[start] = COPY_DATA;
    block.buffer.writeInt32BE(to - start - 1, start + 1);
    block.used = to;
    block.unsent++;
    return { part: block.buffer.subarray(start, to), sent: () => this.sent(block) };
  }

  private blockFor(bytes: number, compactor: Compactor): Block | undefined {
    const current = this.current;
    if (current && BLOCK_BYTES - current.used >= bytes) return current;
    if (bytes > BLOCK_BYTES) return undefined;
    if (current) this.retire(current);
    let block = this.free.pop();
    if (!block && this.made < BLOCKS) {
      const offset = this.made++ * BLOCK_BYTES;
      block = { buffer: compactor.memory.subarray(offset, offset + BLOCK_BYTES), offset, used: 0, unsent: 0 };
    }
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
    this.free.push(block);
  }
}

function noop(): void {}
