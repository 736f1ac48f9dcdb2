/** The size of one socket read: what Node reads at a time when it allocates the buffer itself. */
export const READ_BYTES = 64 << 10;
/**
 * Buffers a socket keeps for reuse, at most: 4 MB. A COPY read holds about its read-ahead (1 MB)
 * and a batch or two (256 KB of narrow rows); wide rows' batches (up to 8 MB) take fresh buffers
 * for the rest, as every read did before.
 */
const KEPT = 64;

/**
 * The buffers one socket reads into, used again once nothing reads them any more.
 *
 * Every socket read used to land in a new 64 KB buffer. Their bytes are outside V8's heap, but V8
 * counts them against the room it leaves the heap, so a load of 5M rows (344 MB of reads) ran a
 * full collection every few megabytes, each marking the whole heap of the batches in flight. Reads
 * into buffers already made count nothing. Which buffer is free is known only to the COPY reader
 * (see ChunkLedger): a buffer given to a reader comes back through `give` or not at all, and one
 * that never comes back is simply collected.
 */
export class ReadBuffers {
  private readonly free: Buffer[] = [];
  /** Every reusable buffer, by its memory; and which of them are free now. */
  private readonly mine = new Map<ArrayBufferLike, Buffer>();
  private readonly idle = new Set<ArrayBufferLike>();

  /** A buffer for the next read: a free one, else a new one (kept for reuse while fewer than KEPT are). */
  take(): Buffer {
    const reused = this.free.pop();
    if (reused) {
      this.idle.delete(reused.buffer);
      return reused;
    }
    // allocUnsafeSlow: a buffer of its own, never a slice of Node's shared pool, so that its
    // ArrayBuffer names it.
    const buffer = Buffer.allocUnsafeSlow(READ_BYTES);
    if (this.mine.size < KEPT) this.mine.set(buffer.buffer, buffer);
    return buffer;
  }

  /** Whether `memory` is one of this socket's reusable buffers. */
  owns(memory: ArrayBufferLike): boolean {
    return this.mine.has(memory);
  }

  /** Puts `memory` back for a later read: call it only when nothing can read it any more. */
  give(memory: ArrayBufferLike): void {
    const buffer = this.mine.get(memory);
    // Given twice, a buffer would be read into by two reads at once.
    if (!buffer || this.idle.has(memory)) return;
    this.idle.add(memory);
    this.free.push(buffer);
  }
}
