import type { CopyBinaryDecoder, DecodedBatch } from "./copy-binary-decoder.js";
import type { ReadBuffers } from "./read-buffers.js";

/**
 * Which of a COPY read's reused socket buffers (see ReadBuffers) something may still read, so that
 * the rest go back for the next reads.
 *
 * Chunks are taken in order, and whatever still reads one (the decoder's unfinished batch, a batch
 * the engine has not finished with) reads a run of the latest chunks. So a buffer is free once every
 * holder's oldest chunk is a later one: `release` is told what is still held, in any order, and
 * gives back every buffer taken before the oldest of it. A holder is done with a batch when the
 * engine asks for the item after it (the source contract: core keeps no batch, and reads none of its
 * columns, after asking for the next item).
 */
export class ChunkLedger {
  /** Reused buffers taken and not given back, oldest first. */
  private readonly taken: ArrayBufferLike[] = [];
  /** The number each of them was taken as: they count up from the oldest. */
  private readonly numberOf = new Map<ArrayBufferLike, number>();
  private next = 0;

  /** @param buffersOf the reused buffers of the read's socket, once its COPY is under way */
  constructor(private readonly buffersOf: () => ReadBuffers | undefined) {}

  /** Notes a chunk as it is taken from the socket. */
  took(chunk: Buffer): void {
    const memory = chunk.buffer;
    if (!this.buffersOf()?.owns(memory) || this.numberOf.has(memory)) return;
    this.taken.push(memory);
    this.numberOf.set(memory, this.next++);
  }

  /** Gives back every buffer taken before the oldest of `held` (the memory of whatever may still be read). */
  release(held: Iterable<ArrayBufferLike>): void {
    const buffers = this.buffersOf();
    if (!buffers || this.taken.length === 0) return;
    let oldest = this.next;
    for (const memory of held) {
      const number = this.numberOf.get(memory);
      if (number !== undefined && number < oldest) oldest = number;
    }
    const taken = this.taken;
    let i = 0;
    for (; i < taken.length && (this.numberOf.get(taken[i] as ArrayBufferLike) as number) < oldest; i++) {
      const memory = taken[i] as ArrayBufferLike;
      this.numberOf.delete(memory);
      buffers.give(memory);
    }
    if (i > 0) taken.splice(0, i);
  }
}

/**
 * The batches `decoder` makes of `chunks`, each ended (`expire`) once the item after it is asked
 * for, and the chunks' reused buffers given back as soon as nothing reads them.
 */
export async function* decodeReleasing(
  chunks: AsyncIterable<Buffer>,
  decoder: CopyBinaryDecoder,
  ledger: ChunkLedger,
): AsyncGenerator<DecodedBatch> {
  for await (const chunk of chunks) {
    ledger.took(chunk);
    const decoded = decoder.push(chunk);
    for (let i = 0; i < decoded.length; i++) {
      const batch = decoded[i] as DecodedBatch;
      yield batch;
      batch.expire();
      ledger.release(stillRead(decoder, decoded, i + 1));
    }
  }
  const rest = decoder.end();
  if (rest) {
    yield rest;
    rest.expire();
  }
  ledger.release([]);
}

/** The memory still to be read after a batch: the decoder's unfinished one, and the batches of the chunk after it. */
function stillRead(decoder: CopyBinaryDecoder, decoded: readonly DecodedBatch[], from: number): ArrayBufferLike[] {
  const held = decoder.heldMemory();
  for (let i = from; i < decoded.length; i++) held.push(...(decoded[i] as DecodedBatch).memory);
  return held;
}
