import type { Duplex } from "node:stream";
import { COPY_DATA } from "./copy-binary.js";
import { lendReads, readBuffersOf } from "./pooled-socket.js";
import type { ReadBuffers } from "./read-buffers.js";

/**
 * The part of `pg`'s connection a COPY reader uses: its socket, and where it sends a query.
 * (`pg` hands any query object with a `submit` method its connection, and then calls the object's
 * `handle…` methods for the messages it parses.)
 */
interface CopyConnection {
  readonly stream: Duplex;
  query(text: string): void;
}

const COPY_DONE = 0x63; // 'c'
const ERROR_RESPONSE = 0x45; // 'E'

/**
 * `COPY … TO STDOUT` read straight off the connection's socket, yielding its CopyData protocol
 * messages as they came: slices of the socket's chunks, framing included, nothing copied.
 *
 * pg-copy-streams' `to` makes a Buffer per CopyData message (the server sends one per row) and
 * then copies them all into a new buffer per chunk: about a third of the reader's time on narrow
 * rows. Here only the message headers are read; the decoder walks the rows inside the messages,
 * and a Postgres target sends the same messages on (see CopyInQuery).
 * Like pg-copy-streams, it takes the socket from `pg`'s parser while the COPY runs and hands back
 * what follows CopyDone (or an ErrorResponse, which `pg` then reports through `handleError`).
 * Notices and parameter changes that arrive during the COPY are dropped, as pg-copy-streams does.
 *
 * Reads the socket ahead of the consumer up to `bufferBytes` (then pauses it), so the server keeps
 * sending while a batch is being written elsewhere.
 */
export class CopyOutQuery implements AsyncIterable<Buffer> {
  /** Rows the server reported, once it completed. */
  rowCount = 0;
  private connection: CopyConnection | undefined;
  private pgData: ((chunk: Buffer) => void) | undefined;
  private readonly ready: Buffer[] = [];
  private readyBytes = 0;
  private ended = false;
  private failure: unknown;
  private wake: (() => void) | undefined;
  /** Parser state: the current message's type, header bytes seen (0–5), its length, payload bytes left. */
  private code = 0;
  private headerSeen = 0;
  private length = 0;
  private left = 0;
  /** The socket is paused because `bufferBytes` wait unread. */
  private held = false;
  private readonly onData = (chunk: Buffer) => this.take(chunk);
  /** The socket's reusable buffers, when it reads into them (pooledSocket); the reader gives them back. */
  private lentFrom: ReadBuffers | undefined;
  /** The chunk being parsed already has a slice in `ready`. */
  private chunkKept = false;

  constructor(
    readonly text: string,
    private readonly bufferBytes = 1 << 20,
  ) {}

  submit(connection: CopyConnection): void {
    this.connection = connection;
    const socket = connection.stream;
    const listeners = socket.listeners("data");
    if (listeners.length !== 1)
      throw new Error(`a COPY reader expects one data listener on the socket, found ${listeners.length}`);
    this.pgData = listeners[0] as (chunk: Buffer) => void;
    socket.removeListener("data", this.pgData as (chunk: Buffer) => void);
    socket.on("data", this.onData);
    this.lentFrom = readBuffersOf(socket);
    lendReads(socket, true);
    connection.query(this.text);
  }

  /** `pg` overwrites this with its timeout handling when `query_timeout` is set; calling it clears the timer. */
  callback(): void {}

  /**
   * The buffers the chunks are views of, when the socket reuses them: a chunk may be given back
   * (`give(chunk.buffer)`) once nothing reads it or any slice of it. Each reused buffer reaches the
   * consumer as one chunk at most.
   */
  get buffers(): ReadBuffers | undefined {
    return this.lentFrom;
  }

  /** Called by `pg` with the server's error, or when the connection is lost. */
  handleError(error: unknown): void {
    this.callback();
    this.fail(error);
  }

  handleCommandComplete(message: { text?: string } | undefined): void {
    const match = /COPY (\d+)/.exec(message?.text ?? "");
    if (match) this.rowCount = Number(match[1]);
  }

  handleReadyForQuery(): void {
    this.callback();
  }

  /** Stops the read: the connection is left inside the COPY and cannot be used again. */
  destroy(error?: unknown): void {
    if (this.ended || this.failure) return;
    const socket = this.connection?.stream;
    socket?.removeListener("data", this.onData);
    // Nothing reads the rest of the COPY now: leave it in the socket rather than drop it.
    socket?.pause();
    this.fail(error ?? new Error("the COPY read was stopped"));
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    this.signal();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /**
   * Takes a chunk as the socket delivers it, and pauses the socket once `bufferBytes` wait unread.
   * (Flowing mode: a paused socket's `read()` joins whatever it buffered into a new Buffer, a copy
   * of every byte and, at this rate, a full garbage collection every 64 MB of it.)
   */
  private take(chunk: Buffer): void {
    if (this.ended || this.pgData === undefined) return;
    this.chunkKept = false;
    this.parse(chunk);
    // A read holding no row (only the COPY's end, or its start) goes back at once.
    if (!this.chunkKept) this.lentFrom?.give(chunk.buffer);
    if (this.pgData !== undefined && this.readyBytes >= this.bufferBytes) {
      this.held = true;
      this.connection?.stream.pause();
    }
    this.signal();
  }

  /**
   * Keeps the CopyData messages of one socket chunk, as slices of it; skips any other message;
   * hands the socket back at CopyDone or an ErrorResponse. Only message headers are read here.
   */
  private parse(chunk: Buffer): void {
    const end = chunk.length;
    let pos = 0;
    /** Where the CopyData run being kept began in this chunk. */
    let from = 0;
    let { code, left } = this;
    while (pos < end) {
      if (left > 0) {
        const n = Math.min(left, end - pos);
        pos += n;
        left -= n;
        continue;
      }
      if (this.headerSeen === 0) {
        if (code !== COPY_DATA) from = pos;
        code = chunk[pos] as number;
        if (code !== COPY_DATA) {
          this.emit(chunk, from, pos);
          from = pos;
          if (code === ERROR_RESPONSE) {
            this.handBack(chunk.subarray(pos));
            return;
          }
        }
        if (pos + 5 <= end) {
          left =
            (((chunk[pos + 1] as number) << 24) |
              ((chunk[pos + 2] as number) << 16) |
              ((chunk[pos + 3] as number) << 8) |
              (chunk[pos + 4] as number)) -
            4;
          pos += 5;
        } else {
          pos++;
          this.headerSeen = 1;
          this.length = 0;
        }
      }
      if (this.headerSeen > 0) {
        // A header cut by the chunk's end is read a byte at a time.
        while (this.headerSeen < 5 && pos < end) {
          this.length = this.length * 256 + (chunk[pos++] as number);
          this.headerSeen++;
        }
        if (this.headerSeen < 5) break;
        this.headerSeen = 0;
        left = this.length - 4;
      }
      if (code === COPY_DONE) {
        this.ended = true;
        this.handBack(chunk.subarray(pos));
        return;
      }
    }
    this.code = code;
    this.left = left;
    if (code === COPY_DATA) this.emit(chunk, from, end);
  }

  private emit(chunk: Buffer, from: number, to: number): void {
    if (to <= from) return;
    // A reused buffer is given back whole, so only its first slice may be a view (the rest are
    // rows on either side of a notice, which hardly happens).
    if (this.lentFrom && this.chunkKept) this.ready.push(Buffer.from(chunk.subarray(from, to)));
    else this.ready.push(from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to));
    this.chunkKept = true;
    this.readyBytes += to - from;
  }

  /** Gives the socket back to `pg`'s parser, starting with the bytes after the COPY's data. */
  private handBack(rest: Buffer): void {
    const connection = this.connection as CopyConnection;
    const pgData = this.pgData as (chunk: Buffer) => void;
    this.pgData = undefined;
    const socket = connection.stream;
    socket.removeListener("data", this.onData);
    this.held = false;
    lendReads(socket, false);
    socket.on("data", pgData);
    // pg's parser keeps slices of what it is given: never a view of a buffer to be reused.
    pgData(this.lentFrom ? Buffer.from(rest) : rest);
    // As pg-copy-streams does: resuming inside pg's handler could reorder what it parses.
    process.nextTick(() => socket.resume());
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        if (this.held && this.readyBytes < this.bufferBytes) {
          this.held = false;
          this.connection?.stream.resume();
        }
        const chunk = this.ready.shift();
        if (chunk) {
          this.readyBytes -= chunk.length;
          yield chunk;
          continue;
        }
        if (this.failure) throw this.failure;
        if (this.ended) return;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
    } finally {
      if (!this.ended) this.destroy();
    }
  }
}
