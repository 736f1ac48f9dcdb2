import { isUtf8 } from "node:buffer";
import {
  BATCH_BYTES,
  type Column,
  type ColumnVector,
  maxRow,
  type RecordBatch,
  SqlloadError,
  type Utf8Fields,
} from "@sqlload/core";
import {
  COPY_DATA,
  decodeNumeric,
  decodeUuid,
  formatError,
  LITTLE_ENDIAN,
  PG_EPOCH_DAYS,
  PG_EPOCH_MICROS,
  PG_EPOCH_MICROS_BIG,
  SIGNATURE,
  scaleNumeric,
  TWO_32,
} from "./copy-binary.js";
import {
  DATE_INFINITY,
  DATE_MINUS_INFINITY,
  TIMESTAMP_INFINITY,
  TIMESTAMP_MINUS_INFINITY,
  type WireType,
} from "./postgres-dialect.js";

// Small integers for the hot loop's switch.
const BOOL = 1;
const INT2 = 2;
const INT4 = 3;
const INT8 = 4;
const FLOAT4 = 5;
const FLOAT8 = 6;
const NUMERIC = 7;
const TEXT = 8;
const JSONB = 9;
const BYTEA = 10;
const DATE = 11;
const TIME = 12;
const TIMESTAMP = 13;
const UUID = 14;
const ARRAY = 15;

const CODES: Record<Exclude<WireType["kind"], "unsupported">, number> = {
  bool: BOOL,
  int2: INT2,
  int4: INT4,
  int8: INT8,
  float4: FLOAT4,
  float8: FLOAT8,
  numeric: NUMERIC,
  text: TEXT,
  json: TEXT,
  jsonb: JSONB,
  bytea: BYTEA,
  date: DATE,
  time: TIME,
  timestamp: TIMESTAMP,
  timestamptz: TIMESTAMP,
  uuid: UUID,
  array: ARRAY,
};

/** One column being decoded: its storage as core's RecordBatch documents it. */
interface Builder {
  readonly code: number;
  readonly wire: WireType;
  u8: Uint8Array;
  i32: Int32Array;
  f64: Float64Array;
  i64: BigInt64Array;
  /** The two 32-bit words of each `i64` slot, low word first (little-endian hosts). */
  w32: Int32Array;
  arr: unknown[];
}

const EMPTY_U8 = new Uint8Array(0);
const EMPTY_I32 = new Int32Array(0);
const EMPTY_F64 = new Float64Array(0);
const EMPTY_I64 = new BigInt64Array(0);

export interface DecodedBatch {
  readonly batch: RecordBatch;
  /** Bytes of COPY data the batch's rows took. */
  readonly bytes: number;
  /**
   * Those bytes themselves (rows only, no header or trailer), for a Postgres target to pass on as
   * they are; with `framed`, as whole CopyData protocol messages.
   */
  readonly raw: readonly Buffer[];
  /** The memory the batch's columns (until decoded) and raw bytes are views of. */
  readonly memory: readonly ArrayBufferLike[];
  /**
   * Ends the batch: a column not decoded yet then throws when read, rather than decode memory
   * that may hold later reads by then (see ChunkLedger).
   */
  expire(): void;
}

export interface DecoderOptions {
  /**
   * Rows per batch. Default 4096: small enough that a batch's strings die young (larger batches
   * measured 2x slower, spent in the garbage collector), large enough to amortize per-batch work.
   */
  readonly rows?: number;
  /** A batch ends early once its rows took this many bytes, so wide rows keep memory bounded. */
  readonly bytes?: number;
  /**
   * The chunks are CopyData protocol messages (type byte, length, data), as they came off the
   * socket, rather than the bare COPY data. The raw bytes of each batch are then whole messages
   * too, which a Postgres target sends on without framing them again.
   */
  readonly framed?: boolean;
  /**
   * A column decoded while the rows are walked rather than when first read: the cursor, which the
   * engine reads of every batch. Only rows walked on the common path (one row per CopyData message)
   * are decoded so; a batch with any other row decodes the column when read, as the others.
   */
  readonly eager?: number | undefined;
}

/**
 * Where a batch's rows lie, so that each column can be decoded when first read. The walk notes
 * only where each row starts (a store per row, not two per field); a column decoded first finds
 * its fields by stepping over the ones before, and a second one builds `fields` for all.
 */
interface FieldIndex {
  /** The buffers the rows lie in, and a view of each. */
  readonly bufs: Buffer[];
  readonly views: DataView[];
  /** Per row, the index of its buffer and the offset of its field count. */
  readonly rowBuf: Int32Array;
  readonly rowStart: Int32Array;
  /** Per column, 1 once a NULL was seen: the other columns have no NULL mask. */
  readonly hasNull: Uint8Array;
  /** Columns decoded so far. */
  decoded: number;
  /** The batch was ended (DecodedBatch.expire): its buffers may hold other bytes now. */
  expired: boolean;
  /** The eager column as the walk decodes it; `complete` until a row is walked another way. */
  readonly eager: { readonly builder: Builder; nulls: Uint8Array | undefined; complete: boolean } | undefined;
  /** Per column and row (`c * rows + r`): the field's offset and length (-1 for NULL). */
  fields?: { readonly offsets: Int32Array; readonly lengths: Int32Array };
}

/** A batch's arrays that outlive it (CopyBinaryDecoder.spare). */
interface Reusable {
  readonly rowBuf: Int32Array;
  readonly rowStart: Int32Array;
  readonly builder: Builder | undefined;
}

/** Expired batches' arrays kept: a read holds two or three batches at once (ChunkLedger). */
const MAX_SPARE = 4;

/**
 * Decodes a stream of COPY binary chunks (split anywhere, not on row boundaries) into
 * RecordBatches. A push only walks the rows, noting where each field lies; a column's values are
 * decoded straight into its typed array the first time anyone reads them. Rows that go on to a
 * Postgres target as the bytes they came in (see RAW_COPY) are then never decoded beyond the
 * cursor column the engine looks at.
 *
 * Framed, it walks the CopyData messages the chunks hold. Postgres sends one message per row, so
 * a batch's messages are passed on as slices of the chunks they came in; a message that holds
 * anything else as well (the file header, several rows cut by a batch's end) is framed anew, and
 * once a row spans two messages the rest of the stream is unframed and walked as bare data.
 */
export class CopyBinaryDecoder {
  private pending: Buffer | undefined;
  /** Framed: the start of a message cut by the end of the last chunk. */
  private pendingMessage: Buffer | undefined;
  /** Framed: a row spanned two messages, so messages are no longer row boundaries. */
  private unframing = false;
  /** The payload of the message being walked (framed). */
  private message: { buf: Buffer | undefined; start: number; end: number } = { buf: undefined, start: 0, end: 0 };
  /** The raw bytes of the rows walked since the last flush, as slices of the chunks they came in. */
  private raw: Buffer[] = [];
  /** Framed: whole messages not yet added to `raw`, contiguous in one buffer, so that they make one slice. */
  private run: { buf: Buffer | undefined; from: number; to: number } = { buf: undefined, from: 0, to: 0 };
  private headerDone = false;
  private done = false;
  private index: FieldIndex;
  /**
   * What expired batches leave for the next ones to fill: where their rows start, and the eager
   * column's builder. Allocated for every batch, these typed arrays cost a load of 5M rows about
   * 0.2 s of the main thread and, into a Postgres target, a fifth of its memory (memory the
   * allocator had given back, zeroed and faulted in again, and arrays waiting for a full
   * collection: bench/README.md, 2026-12-07 14:47).
   */
  private readonly spare: Reusable[] = [];
  private rows = 0;
  private batchBytes = 0;
  private readonly capacity: number;
  private readonly maxBytes: number;
  private readonly framed: boolean;
  private readonly eager: number;

  constructor(
    private readonly schema: readonly Column[],
    private readonly wires: readonly WireType[],
    options: DecoderOptions = {},
  ) {
    this.capacity = options.rows ?? 4096;
    this.maxBytes = options.bytes ?? BATCH_BYTES;
    this.framed = options.framed ?? false;
    this.eager = options.framed && options.eager !== undefined ? options.eager : -1;
    for (const wire of wires) {
      if (wire.kind === "unsupported") throw formatError(`a column of type ${wire.name} cannot be decoded`);
    }
    this.index = this.newIndex();
  }

  /** The memory the batch being built, and the bytes kept for the next chunk, are views of. */
  heldMemory(): ArrayBufferLike[] {
    const held = this.index.bufs.map((b) => b.buffer);
    for (const part of this.raw) held.push(part.buffer);
    for (const view of [this.pending, this.pendingMessage, this.run.buf]) if (view) held.push(view.buffer);
    return held;
  }

  /** Whether the trailer has been read. */
  get finished(): boolean {
    return this.done;
  }

  private newIndex(): FieldIndex {
    // The walk writes each row's slots before anything reads them, so reused arrays need no clearing.
    const reused = this.spare.pop() ?? {
      rowBuf: new Int32Array(this.capacity),
      rowStart: new Int32Array(this.capacity),
      builder: this.eager < 0 ? undefined : newBuilder(this.wires[this.eager] as WireType, this.capacity),
    };
    return {
      bufs: [],
      views: [],
      rowBuf: reused.rowBuf,
      rowStart: reused.rowStart,
      hasNull: new Uint8Array(this.wires.length),
      decoded: 0,
      expired: false,
      eager: reused.builder && { builder: reused.builder, nulls: undefined, complete: true },
    };
  }

  /**
   * Takes an expired batch's arrays back. Nothing reads them again: a column not read yet throws
   * once its batch expired, the eager column's values are a copy (flush), and the UTF-8 fields that
   * show the row index (`Utf8Fields.buffer`) are, like the socket bytes they point into, valid only
   * until the next item is asked for.
   */
  private reuse(index: FieldIndex): void {
    if (this.spare.length >= MAX_SPARE) return;
    this.spare.push({ rowBuf: index.rowBuf, rowStart: index.rowStart, builder: index.eager?.builder });
  }

  /** Feeds one chunk; returns the batches it completed. */
  push(chunk: Buffer): DecodedBatch[] {
    const out: DecodedBatch[] = [];
    if (this.framed) this.pushMessages(chunk, out);
    else this.pushData(chunk, out);
    return out;
  }

  /** Feeds bare COPY data. */
  private pushData(chunk: Buffer, out: DecodedBatch[]): void {
    if (this.done) {
      if (chunk.length > 0) throw formatError("data after the trailer");
      return;
    }
    const pending = this.pending;
    this.pending = undefined;
    if (!pending) {
      this.walk(chunk, viewOf(chunk), 0, chunk.length, out);
      return;
    }
    // Nearly every chunk ends inside a row. Joining only that row's bytes, not the whole next chunk,
    // keeps allocations small (large ones fragment the heap and grow RSS on long loads).
    const rowEnd = this.headerDone ? rowLength(pending, chunk) : -1;
    if (rowEnd < 0) {
      const joined = Buffer.concat([pending, chunk]);
      this.walk(joined, viewOf(joined), 0, joined.length, out);
      return;
    }
    const taken = rowEnd - pending.length;
    const row = Buffer.concat([pending, chunk.subarray(0, taken)]);
    this.walk(row, viewOf(row), 0, row.length, out);
    if (!this.done || taken < chunk.length) this.walk(chunk, viewOf(chunk), taken, chunk.length, out);
  }

  /** Feeds CopyData messages: joins a message cut by the last chunk's end, then walks the whole ones. */
  private pushMessages(chunk: Buffer, out: DecodedBatch[]): void {
    let start = 0;
    const cut = this.pendingMessage;
    if (cut) {
      this.pendingMessage = undefined;
      const total = messageLength(cut, chunk);
      if (total < 0 || cut.length + chunk.length < total) {
        this.pendingMessage = Buffer.concat([cut, chunk]);
        return;
      }
      start = total - cut.length;
      const joined = Buffer.concat([cut, chunk.subarray(0, start)]);
      this.messages(joined, 0, out);
    }
    this.messages(chunk, start, out);
  }

  private messages(buf: Buffer, start: number, out: DecodedBatch[]): void {
    const view = viewOf(buf);
    const end = buf.length;
    let pos = start;
    while (pos + 5 <= end) {
      if (buf[pos] !== COPY_DATA) throw formatError(`a protocol message of type ${buf[pos]} came among the COPY data`);
      const length = view.getInt32(pos + 1);
      if (length < 4) throw formatError(`a CopyData message is ${length} bytes long`);
      const data = pos + 5;
      const next = pos + 1 + length;
      if (next > end) break;
      if (this.unframing) this.pushData(buf.subarray(data, next), out);
      else if (this.headerDone && this.oneRow(buf, view, pos, next)) {
        if (this.rows >= this.capacity || this.batchBytes >= this.maxBytes) out.push(this.flush());
      } else {
        const message = this.message;
        message.buf = buf;
        message.start = data;
        message.end = next;
        this.walk(buf, view, data, next, out);
        if (this.pending) {
          // A row goes on in the next message: from here on, messages are just the data's carriers.
          this.unframing = true;
          this.message.buf = undefined;
        }
      }
      pos = next;
    }
    if (pos < end) this.pendingMessage = buf.subarray(pos);
  }

  /**
   * The common case, as Postgres sends it: the message at `at` (ending at `next`) holds one whole
   * row and nothing else. Notes the row and adds the message to the batch's run of messages, without
   * the per-message bookkeeping of `walk`; false (nothing noted) for anything else, which `walk` takes.
   */
  private oneRow(buf: Buffer, view: DataView, at: number, next: number): boolean {
    const start = at + 5;
    const ncols = this.wires.length;
    if (next - start < 2 || view.getInt16(start) !== ncols || this.done || this.pending) return false;
    const index = this.index;
    const { hasNull, eager } = index;
    const r = this.rows;
    let q = start + 2;
    for (let c = 0; c < ncols; c++) {
      if (q + 4 > next) return false;
      const len = view.getInt32(q);
      q += 4;
      if (c === this.eager && eager && q + len <= next) {
        // Written in place for row r; a row that turns out not to be one is walked again, and
        // the batch then decodes the column when read (see walk).
        if (len >= 0) {
          decodeField(eager.builder, buf, view, q, len, r);
          if (eager.nulls) eager.nulls[r] = 0;
        } else {
          (eager.nulls ??= new Uint8Array(this.capacity))[r] = 1;
          // A reused builder holds an earlier batch's value here: a NULL row's slot reads as a fresh one's.
          clearField(eager.builder, r);
        }
      }
      if (len > 0) q += len;
      else if (len < 0) hasNull[c] = 1;
    }
    if (q !== next) return false;
    this.rows++;
    index.rowBuf[r] = this.bufIndexOf(buf, view);
    index.rowStart[r] = start;
    this.batchBytes += next - start;
    const run = this.run;
    if (run.buf === buf && run.to === at) run.to = next;
    else {
      this.endRun();
      run.buf = buf;
      run.from = at;
      run.to = next;
    }
    return true;
  }

  /** Where the batch keeps `buf` (the chunk a row lies in): the last chunk it noted, or `buf` noted now. */
  private bufIndexOf(buf: Buffer, view: DataView): number {
    const { bufs, views } = this.index;
    const last = bufs.length - 1;
    if (last >= 0 && bufs[last] === buf) return last;
    views.push(view);
    return bufs.push(buf) - 1;
  }

  /** Walks the rows of `buf` from `start` to `end`, completing batches into `out`; keeps a cut row as pending. */
  private walk(buf: Buffer, view: DataView, start: number, end: number, out: DecodedBatch[]): void {
    if (this.done) {
      if (start < end) throw formatError("data after the trailer");
      return;
    }
    let pos = start;
    if (!this.headerDone) {
      if (end - start < 19) {
        this.pending = buf.subarray(start, end);
        return;
      }
      if (!buf.subarray(start, start + 11).equals(SIGNATURE)) throw formatError("the signature is wrong");
      const extension = view.getInt32(start + 15);
      if (end - start < 19 + extension) {
        this.pending = buf.subarray(start, end);
        return;
      }
      pos = start + 19 + extension;
      this.headerDone = true;
    }
    let rawStart = pos;
    let bufIndex = -1;
    let { rowStart, hasNull } = this.index;
    const ncols = this.wires.length;
    const capacity = this.capacity;
    rows: while (pos + 2 <= end) {
      const fields = view.getInt16(pos);
      if (fields === -1) {
        this.done = true;
        if (pos > rawStart) this.addRaw(buf, rawStart, pos);
        rawStart = pos += 2;
        break;
      }
      if (fields !== ncols) throw formatError(`a row has ${fields} fields, expected ${ncols}`);
      const r = this.rows;
      let q = pos + 2;
      // A row cut by the chunk's end is walked again from its start with the next chunk.
      for (let c = 0; c < ncols; c++) {
        if (q + 4 > end) break rows;
        const len = view.getInt32(q);
        q += 4;
        if (len > 0) {
          q += len;
          if (q > end) break rows;
        } else if (len < 0) hasNull[c] = 1;
      }
      if (bufIndex < 0) bufIndex = this.bufIndexOf(buf, view);
      if (this.index.eager) this.index.eager.complete = false;
      this.index.rowBuf[r] = bufIndex;
      rowStart[r] = pos;
      this.batchBytes += q - pos;
      pos = q;
      this.rows++;
      if (this.rows >= capacity || this.batchBytes >= this.maxBytes) {
        this.addRaw(buf, rawStart, pos);
        rawStart = pos;
        out.push(this.flush());
        ({ rowStart, hasNull } = this.index);
        bufIndex = -1;
      }
    }
    if (pos > rawStart) this.addRaw(buf, rawStart, pos);
    if (pos < end) this.pending = this.framed ? buf.subarray(pos, end) : Buffer.from(buf.subarray(pos, end));
  }

  /** Keeps the raw bytes of rows `from`–`to` of `buf` for the batch being built. */
  private addRaw(buf: Buffer, from: number, to: number): void {
    if (!this.framed) {
      this.raw.push(buf.subarray(from, to));
      return;
    }
    const { message, run } = this;
    if (message.buf === buf && from === message.start && to === message.end) {
      // A message of nothing but these rows: itself, header included.
      if (run.buf === buf && run.to === from - 5) run.to = to;
      else {
        this.endRun();
        run.buf = buf;
        run.from = from - 5;
        run.to = to;
      }
      return;
    }
    this.endRun();
    const framed = Buffer.allocUnsafe(5 + to - from);
    framed[0] = COPY_DATA;
    framed.writeInt32BE(4 + to - from, 1);
    buf.copy(framed, 5, from, to);
    this.raw.push(framed);
  }

  private endRun(): void {
    const run = this.run;
    if (run.buf) this.raw.push(run.buf.subarray(run.from, run.to));
    run.buf = undefined;
  }

  /** The last rows, once the stream ended; throws when the data stopped mid-row or before the trailer. */
  end(): DecodedBatch | undefined {
    if (!this.headerDone && !this.pending && !this.pendingMessage) return undefined;
    if (this.pendingMessage) throw formatError("the stream ended inside a CopyData message");
    if (this.pending && this.pending.length > 0) throw formatError("the stream ended inside a row");
    if (!this.done) throw formatError("the stream ended without a trailer");
    return this.rows > 0 ? this.flush() : undefined;
  }

  private flush(): DecodedBatch {
    const n = this.rows;
    const index = this.index;
    const ncols = this.wires.length;
    const eager = index.eager?.complete ? index.eager : undefined;
    const columns: ColumnVector[] = this.wires.map((wire, c) => {
      if (eager && c === this.eager) {
        const filled = builderValues(eager.builder);
        const nulls = index.hasNull[c] === 1 ? eager.nulls?.subarray(0, n) : undefined;
        let values: ColumnVector["values"] | undefined;
        const text = eager.builder.code === TEXT;
        return {
          // A copy, made when first read: the builder is filled again once the batch expired, and
          // values once read stay valid (SourceItem). The engine takes the maximum from `max`.
          get values() {
            if (!values) {
              if (index.expired) throw expiredError();
              values = (filled as Int32Array).slice(0, n);
            }
            return values;
          },
          nulls,
          max: () => {
            const from = values ?? (index.expired ? undefined : filled);
            if (!from) throw expiredError();
            const row = maxRow(from, nulls, n, text);
            return row < 0 ? null : from[row];
          },
        };
      }
      let decoded: DecodedColumn | undefined;
      // null: asked for, but not valid UTF-8.
      let bytes: Utf8Fields | null | undefined;
      /** Where the fields lie, once a form that reads them in place (bytes, scaled) was asked for. */
      let lengths: Int32Array | undefined;
      let inPlaceNulls: Uint8Array | undefined;
      /** By scale; null: asked for, but some value has no exact integer at that scale. */
      let scaled: Map<number, Float64Array | null> | undefined;
      const decode = () => {
        decoded ??= decodeColumn(wire, index, c, ncols, n);
        return decoded;
      };
      const code = CODES[wire.kind as Exclude<WireType["kind"], "unsupported">];
      return {
        get values() {
          return decode().values;
        },
        get nulls() {
          if (index.hasNull[c] !== 1) return undefined;
          // A column written as bytes or scaled integers need not be decoded for its NULLs.
          if (!decoded && lengths) return (inPlaceNulls ??= nullsOf(lengths));
          return decode().nulls;
        },
        scaled:
          code === NUMERIC
            ? (scale: number) => {
                if (index.expired) throw expiredError();
                scaled ??= new Map();
                let got = scaled.get(scale);
                if (got === undefined) {
                  const located = locate(index, c, ncols, n);
                  lengths = located.lengths;
                  got = scaledNumerics(index, located, n, scale);
                  scaled.set(scale, got);
                }
                return got ?? undefined;
              }
            : undefined,
        utf8:
          code === TEXT || code === JSONB
            ? () => {
                // Checked on every call, not only the first: the bytes are the socket's, reused once expired.
                if (index.expired) throw expiredError();
                if (bytes === undefined) {
                  bytes = utf8Fields(index, c, ncols, n, code === JSONB);
                  if (bytes) lengths = bytes.length;
                }
                return bytes ?? undefined;
              }
            : undefined,
      };
    });
    const bytes = this.batchBytes;
    this.endRun();
    const raw = this.raw;
    const memory = [...index.bufs.map((b) => b.buffer), ...raw.map((part) => part.buffer)];
    this.raw = [];
    this.rows = 0;
    this.batchBytes = 0;
    this.index = this.newIndex();
    const expire = () => {
      if (index.expired) return;
      index.expired = true;
      this.reuse(index);
    };
    return { batch: { schema: this.schema, length: n, columns }, bytes, raw, memory, expire };
  }
}

function nullsOf(lengths: Int32Array): Uint8Array | undefined {
  let nulls: Uint8Array | undefined;
  for (let r = 0; r < lengths.length; r++) {
    if ((lengths[r] as number) >= 0) continue;
    nulls ??= new Uint8Array(lengths.length);
    nulls[r] = 1;
  }
  return nulls;
}

function viewOf(buf: Buffer): DataView {
  return new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
}

/**
 * The length of the protocol message (type byte included) that starts `cut` and continues in
 * `chunk`, or -1 when the two do not hold its length yet.
 */
function messageLength(cut: Buffer, chunk: Buffer): number {
  if (cut.length + chunk.length < 5) return -1;
  const at = (i: number) => (i < cut.length ? (cut[i] as number) : (chunk[i - cut.length] as number));
  return 1 + ((at(1) << 24) | (at(2) << 16) | (at(3) << 8) | at(4));
}

/**
 * The length of the row (or trailer) that starts `pending` and continues in `chunk`, or -1 when
 * the two together do not hold all of it.
 */
function rowLength(pending: Buffer, chunk: Buffer): number {
  const total = pending.length + chunk.length;
  const at = (i: number) => (i < pending.length ? (pending[i] as number) : (chunk[i - pending.length] as number));
  if (total < 2) return -1;
  const fields = (((at(0) << 8) | at(1)) << 16) >> 16;
  if (fields === -1) return 2;
  let pos = 2;
  for (let c = 0; c < fields; c++) {
    if (pos + 4 > total) return -1;
    const len = (at(pos) << 24) | (at(pos + 1) << 16) | (at(pos + 2) << 8) | at(pos + 3);
    pos += 4;
    if (len > 0) pos += len;
    if (pos > total) return -1;
  }
  return pos;
}

interface DecodedColumn {
  readonly values: ColumnVector["values"];
  readonly nulls: Uint8Array | undefined;
}

/** Every field's offset and length, found by walking each row once. */
function fieldsOf(index: FieldIndex, ncols: number, n: number): NonNullable<FieldIndex["fields"]> {
  const offsets = new Int32Array(ncols * n);
  const lengths = new Int32Array(ncols * n);
  const { views, rowBuf, rowStart } = index;
  for (let r = 0; r < n; r++) {
    const view = views[rowBuf[r] as number] as DataView;
    let q = (rowStart[r] as number) + 2;
    for (let c = 0; c < ncols; c++) {
      const len = view.getInt32(q);
      q += 4;
      offsets[c * n + r] = q;
      lengths[c * n + r] = len;
      if (len > 0) q += len;
    }
  }
  return { offsets, lengths };
}

/** Where one column's fields lie in a batch's rows: per row, the offset and length (-1 for NULL). */
interface ColumnFields {
  readonly offsets: Int32Array;
  readonly lengths: Int32Array;
}

function expiredError(): SqlloadError {
  return new SqlloadError(
    "SL900",
    "a column of a batch read from Postgres was read after the next item was asked for; its bytes may be another batch's by then",
  );
}

/** Finds where column `c`'s fields lie; throws once the batch has expired (its buffers may hold other rows). */
function locate(index: FieldIndex, c: number, ncols: number, n: number): ColumnFields {
  if (index.expired) throw expiredError();
  // The first column read (often the only one: the cursor of rows passed on as they came) steps
  // over the fields before it; a second one makes every field's place worth noting.
  if (index.decoded++ > 0) index.fields ??= fieldsOf(index, ncols, n);
  const fields = index.fields;
  if (fields) return { offsets: fields.offsets.subarray(c * n, c * n + n), lengths: fields.lengths.subarray(c * n, c * n + n) };
  const offsets = new Int32Array(n);
  const lengths = new Int32Array(n);
  const { views, rowBuf, rowStart } = index;
  for (let r = 0; r < n; r++) {
    const view = views[rowBuf[r] as number] as DataView;
    let q = (rowStart[r] as number) + 2;
    for (let j = 0; j < c; j++) {
      const skip = view.getInt32(q);
      q += skip > 0 ? 4 + skip : 4;
    }
    lengths[r] = view.getInt32(q);
    offsets[r] = q + 4;
  }
  return { offsets, lengths };
}

/** Decodes one column of a batch into the storage core documents for its type, and its NULL mask. */
function decodeColumn(wire: WireType, index: FieldIndex, c: number, ncols: number, n: number): DecodedColumn {
  const { offsets, lengths } = locate(index, c, ncols, n);
  const b = newBuilder(wire, n);
  const { bufs, views, rowBuf } = index;
  let nulls: Uint8Array | undefined;
  for (let r = 0; r < n; r++) {
    const len = lengths[r] as number;
    if (len < 0) {
      nulls ??= new Uint8Array(n);
      nulls[r] = 1;
      continue;
    }
    const k = rowBuf[r] as number;
    decodeField(b, bufs[k] as Buffer, views[k] as DataView, offsets[r] as number, len, r);
  }
  return { values: builderValues(b), nulls };
}

/** Bytes up to this long are checked for UTF-8 in JavaScript (ASCII seen byte by byte); longer ones by Node. */
const CHECKED_INLINE = 16;

/**
 * A text or jsonb column as the UTF-8 bytes it came in (ColumnVector.utf8), or null when a field
 * is not valid UTF-8 (a database in SQL_ASCII stores any bytes): the column is then read as
 * strings, with U+FFFD where the bytes were not UTF-8, as before.
 */
function utf8Fields(index: FieldIndex, c: number, ncols: number, n: number, jsonb: boolean): Utf8Fields | null {
  const located = locate(index, c, ncols, n);
  const offset = jsonb ? new Int32Array(n) : located.offsets;
  const length = jsonb ? new Int32Array(n) : located.lengths;
  const { bufs, rowBuf } = index;
  for (let r = 0; r < n; r++) {
    let q = located.offsets[r] as number;
    let len = located.lengths[r] as number;
    if (len < 0) {
      length[r] = -1;
      continue;
    }
    const buf = bufs[rowBuf[r] as number] as Buffer;
    if (jsonb) {
      if (buf[q] !== 1) throw formatError(`jsonb format version ${buf[q]} is not known`);
      q++;
      len--;
      offset[r] = q;
      length[r] = len;
    }
    if (!isValidUtf8(buf, q, len)) return null;
  }
  return { buffers: bufs, buffer: rowBuf.subarray(0, n), offset, length };
}

/** A numeric column's values times 10^scale (ColumnVector.scaled), NaN for NULL; null when one has no exact integer there. */
function scaledNumerics(index: FieldIndex, located: ColumnFields, n: number, scale: number): Float64Array | null {
  const out = new Float64Array(n);
  const { views, rowBuf } = index;
  for (let r = 0; r < n; r++) {
    if ((located.lengths[r] as number) < 0) {
      out[r] = Number.NaN;
      continue;
    }
    const value = scaleNumeric(views[rowBuf[r] as number] as DataView, located.offsets[r] as number, scale);
    if (Number.isNaN(value)) return null;
    out[r] = value;
  }
  return out;
}

function isValidUtf8(buf: Buffer, start: number, length: number): boolean {
  if (length <= CHECKED_INLINE) {
    let i = start;
    const end = start + length;
    while (i < end && (buf[i] as number) < 0x80) i++;
    if (i === end) return true;
  }
  return isUtf8(buf.subarray(start, start + length));
}

/** Storage for `n` values of a column of `wire`'s type. */
function newBuilder(wire: WireType, n: number): Builder {
  const code = CODES[wire.kind as Exclude<WireType["kind"], "unsupported">];
  const b: Builder = { code, wire, u8: EMPTY_U8, i32: EMPTY_I32, f64: EMPTY_F64, i64: EMPTY_I64, w32: EMPTY_I32, arr: [] };
  switch (code) {
    case BOOL:
      b.u8 = new Uint8Array(n);
      break;
    case INT2:
    case INT4:
    case DATE:
      b.i32 = new Int32Array(n);
      break;
    case FLOAT4:
    case FLOAT8:
      b.f64 = new Float64Array(n);
      break;
    case INT8:
    case TIME:
    case TIMESTAMP:
      b.i64 = new BigInt64Array(n);
      b.w32 = new Int32Array(b.i64.buffer);
      break;
    default:
      b.arr = new Array(n);
  }
  return b;
}

/** Empties row r's slot of a builder, as a new builder has it (a NULL row's value is never read). */
function clearField(b: Builder, r: number): void {
  switch (b.code) {
    case BOOL:
      b.u8[r] = 0;
      break;
    case INT2:
    case INT4:
    case DATE:
      b.i32[r] = 0;
      break;
    case FLOAT4:
    case FLOAT8:
      b.f64[r] = 0;
      break;
    case INT8:
    case TIME:
    case TIMESTAMP:
      b.i64[r] = 0n;
      break;
    default:
      b.arr[r] = undefined;
  }
}

/** The values a builder holds, as core's storage for its type. */
function builderValues(b: Builder): ColumnVector["values"] {
  switch (b.code) {
    case BOOL:
      return b.u8;
    case INT2:
    case INT4:
    case DATE:
      return b.i32;
    case FLOAT4:
    case FLOAT8:
      return b.f64;
    case INT8:
    case TIME:
    case TIMESTAMP:
      return b.i64;
    default:
      return b.arr;
  }
}

function decodeField(b: Builder, buf: Buffer, view: DataView, q: number, len: number, r: number): void {
  switch (b.code) {
    case BOOL:
      b.u8[r] = buf[q] === 0 ? 0 : 1;
      return;
    case INT2:
      b.i32[r] = view.getInt16(q);
      return;
    case INT4:
      b.i32[r] = view.getInt32(q);
      return;
    case INT8:
    case TIME:
      if (LITTLE_ENDIAN) {
        b.w32[2 * r] = view.getInt32(q + 4);
        b.w32[2 * r + 1] = view.getInt32(q);
      } else b.i64[r] = view.getBigInt64(q);
      return;
    case FLOAT4:
      b.f64[r] = view.getFloat32(q);
      return;
    case FLOAT8:
      b.f64[r] = view.getFloat64(q);
      return;
    case NUMERIC:
      b.arr[r] = decodeNumeric(view, q);
      return;
    case TEXT:
      b.arr[r] = utf8(buf, q, q + len);
      return;
    case JSONB:
      b.arr[r] = decodeJsonb(buf, q, len);
      return;
    case BYTEA:
      // A copy, not a view: the socket's buffers are reused once the batch is done (ChunkLedger).
      b.arr[r] = new Uint8Array(buf.subarray(q, q + len));
      return;
    case DATE:
      b.i32[r] = decodeDate(view.getInt32(q));
      return;
    case TIMESTAMP: {
      const hi = view.getInt32(q);
      // Within ±2^52 µs of 2000 (years 1857–2142) Number arithmetic is exact and allocates nothing.
      if (LITTLE_ENDIAN && hi > -0x100000 && hi < 0x100000) {
        const v = hi * TWO_32 + view.getUint32(q + 4) + PG_EPOCH_MICROS;
        const high = Math.floor(v / TWO_32);
        b.w32[2 * r] = (v - high * TWO_32) | 0;
        b.w32[2 * r + 1] = high;
      } else b.i64[r] = decodeTimestamp(view.getBigInt64(q));
      return;
    }
    case UUID:
      b.arr[r] = decodeUuid(buf, q);
      return;
    case ARRAY:
      b.arr[r] = decodeArray((b.wire as { element: WireType }).element, buf, view, q);
      return;
  }
}

/** Node's Buffer method behind `toString("utf8", …)`, without its argument checks (a third faster on short strings). */
interface Utf8Slicing {
  utf8Slice(start: number, end: number): string;
}

const hasUtf8Slice = typeof (Buffer.prototype as unknown as Partial<Utf8Slicing>).utf8Slice === "function";

function utf8(buf: Buffer, start: number, end: number): string {
  return hasUtf8Slice ? (buf as unknown as Utf8Slicing).utf8Slice(start, end) : buf.toString("utf8", start, end);
}

function decodeJsonb(buf: Buffer, q: number, len: number): string {
  if (buf[q] !== 1) throw formatError(`jsonb format version ${buf[q]} is not known`);
  return utf8(buf, q + 1, q + len);
}

function decodeDate(days: number): number {
  return days === DATE_INFINITY || days === DATE_MINUS_INFINITY ? days : days + PG_EPOCH_DAYS;
}

function decodeTimestamp(v: bigint): bigint {
  if (v === TIMESTAMP_INFINITY || v === TIMESTAMP_MINUS_INFINITY) return v;
  if (v > TIMESTAMP_INFINITY - PG_EPOCH_MICROS_BIG) throw formatError("a timestamp beyond year 294247 cannot be held");
  return v + PG_EPOCH_MICROS_BIG;
}

/** One value in the storage core uses for list elements (bigint for int8, days for dates…). */
function decodeScalar(wire: WireType, buf: Buffer, view: DataView, q: number, len: number): unknown {
  switch (wire.kind) {
    case "bool":
      return buf[q] === 0 ? 0 : 1;
    case "int2":
      return view.getInt16(q);
    case "int4":
      return view.getInt32(q);
    case "int8":
    case "time":
      return view.getBigInt64(q);
    case "float4":
      return view.getFloat32(q);
    case "float8":
      return view.getFloat64(q);
    case "numeric":
      return decodeNumeric(view, q);
    case "text":
    case "json":
      return buf.toString("utf8", q, q + len);
    case "jsonb":
      return decodeJsonb(buf, q, len);
    case "bytea":
      return new Uint8Array(buf.subarray(q, q + len));
    case "date":
      return decodeDate(view.getInt32(q));
    case "timestamp":
    case "timestamptz":
      return decodeTimestamp(view.getBigInt64(q));
    case "uuid":
      return decodeUuid(buf, q);
    case "array":
      return decodeArray(wire.element, buf, view, q);
    case "unsupported":
      throw formatError(`a value of type ${wire.name} cannot be decoded`);
  }
}

/**
 * A binary array as nested JS arrays: one level per dimension (lower bounds are not kept).
 * Layout: ndim, has-null flag, element oid, per dimension (size, lower bound), then elements.
 */
function decodeArray(element: WireType, buf: Buffer, view: DataView, q: number): unknown[] {
  const ndim = view.getInt32(q);
  if (ndim === 0) return [];
  const dims: number[] = [];
  let p = q + 12;
  for (let d = 0; d < ndim; d++) {
    dims.push(view.getInt32(p));
    p += 8;
  }
  const build = (level: number): unknown[] => {
    const size = dims[level] as number;
    const out = new Array(size);
    for (let i = 0; i < size; i++) {
      if (level + 1 < ndim) {
        out[i] = build(level + 1);
        continue;
      }
      const len = view.getInt32(p);
      p += 4;
      if (len < 0) out[i] = null;
      else {
        out[i] = decodeScalar(element, buf, view, p, len);
        p += len;
      }
    }
    return out;
  };
  return build(0);
}
