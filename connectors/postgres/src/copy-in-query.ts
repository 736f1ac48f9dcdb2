import type { Duplex } from "node:stream";
import { COPY_DATA } from "./copy-binary.js";
import { CopyDataJoiner } from "./copy-data-joiner.js";

/** The part of `pg`'s connection a COPY writer uses (see CopyOutQuery); `sendCopyFail` is in `pg`, not in its types. */
interface CopyConnection {
  readonly stream: Duplex;
  query(text: string): void;
  sendCopyFail?(message: string): void;
}

const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]); // 'c', length 4

/**
 * `COPY … FROM STDIN` written straight to the connection's socket. `write` takes either bare COPY
 * data, which it frames as one CopyData message per buffer (as pg-copy-streams' `from` does), or
 * buffers that already are whole CopyData messages (rows read from Postgres, see CopyOutQuery),
 * whose rows it sends joined into one message per buffer (CopyDataJoiner): the data of the messages
 * a source server sent is valid data to a target.
 *
 * Unlike a Writable, every call says when it is done, and an error of the server fails the next
 * call: the commit unit awaits each write anyway. At most `bufferBytes` wait in the socket.
 */
export class CopyInQuery {
  /** Rows the server reported, once it completed. */
  rowCount = 0;
  private connection: CopyConnection | undefined;
  private readonly accepted: Promise<void>;
  private readonly completed: Promise<void>;
  private accept!: () => void;
  private complete!: () => void;
  private failure: unknown;
  private readonly waiters = new Set<(error: unknown) => void>();
  private readonly joiner = new CopyDataJoiner();

  constructor(
    readonly text: string,
    private readonly bufferBytes = 1 << 20,
  ) {
    this.accepted = new Promise((resolve) => {
      this.accept = resolve;
    });
    this.completed = new Promise((resolve) => {
      this.complete = resolve;
    });
  }

  submit(connection: CopyConnection): void {
    this.connection = connection;
    connection.query(this.text);
  }

  /** `pg` overwrites this with its timeout handling when `query_timeout` is set. */
  callback(): void {}

  handleCopyInResponse(): void {
    this.accept();
  }

  handleError(error: unknown): void {
    this.callback();
    this.failure ??= error;
    for (const wake of this.waiters) wake(error);
    this.waiters.clear();
  }

  handleCommandComplete(message: { text?: string } | undefined): void {
    const match = /COPY (\d+)/.exec(message?.text ?? "");
    if (match) this.rowCount = Number(match[1]);
  }

  handleReadyForQuery(): void {
    this.callback();
    this.complete();
  }

  /** Sends `buffers`: bare COPY data unless `framed`, when each is one or more whole CopyData messages. */
  async write(buffers: readonly Buffer[], framed: boolean): Promise<void> {
    await this.until(this.accepted);
    const socket = (this.connection as CopyConnection).stream;
    for (const buffer of buffers) {
      if (buffer.length === 0) continue;
      if (framed) {
        const { part, sent } = this.joiner.join(buffer);
        // Sent as it came, the part is a view of the source's socket buffers, which are reused once
        // this write returns (ChunkLedger): the socket must keep a copy.
        socket.write(part === buffer ? Buffer.from(part) : part, sent);
        continue;
      }
      const header = Buffer.allocUnsafe(5);
      header[0] = COPY_DATA;
      header.writeInt32BE(buffer.length + 4, 1);
      socket.write(header);
      socket.write(buffer);
    }
    if (socket.writableLength >= this.bufferBytes) await this.until(new Promise((resolve) => socket.once("drain", resolve)));
    if (this.failure) throw this.failure;
  }

  /** Ends the COPY; resolves once the server has taken every row, fails with its error otherwise. */
  async end(): Promise<void> {
    await this.until(this.accepted);
    (this.connection as CopyConnection).stream.write(COPY_DONE);
    await this.until(this.completed);
    if (this.failure) throw this.failure;
  }

  /** Makes the server drop what this COPY sent (CopyFail); resolves once it has answered. */
  async fail(message: string): Promise<void> {
    if (this.failure) return;
    await this.until(this.accepted).catch(() => undefined);
    if (this.failure) return;
    const connection = this.connection as CopyConnection;
    // Closing the connection drops the COPY too, and the transaction with it.
    if (connection.sendCopyFail) connection.sendCopyFail(message);
    else connection.stream.destroy(new Error(message));
    await this.until(this.completed).catch(() => undefined);
  }

  /** Waits for `event`, or fails as soon as the server reports an error. */
  private until(event: Promise<unknown>): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const wake = (error: unknown) => reject(error);
      this.waiters.add(wake);
      event.then(
        () => {
          this.waiters.delete(wake);
          resolve();
        },
        (error) => {
          this.waiters.delete(wake);
          reject(error);
        },
      );
    });
  }
}
