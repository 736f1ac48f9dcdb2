import {
  type Column,
  type ColumnVector,
  formatScaled,
  LITTLE_ENDIAN,
  type LogicalType,
  parseScaled,
  type RecordBatch,
  SqlloadError,
  type Utf8Fields,
} from "@sqlload/core";
import { quoteIdent } from "./clickhouse-dialect.js";
import { clickhouseTypeSql, decimalFits, MAX_DECIMAL_PRECISION } from "./clickhouse-types.js";

/**
 * Native: ClickHouse's own columnar format, the one it parses fastest (a column of fixed-width values
 * is one copy, no row is taken apart). Each batch is one block: its column and row counts, then per
 * column its name, its "wire" type (below) and all its values together. Columns are written in the
 * wire types of the batch's own logical types and read through `input()` / `file()` with that
 * structure, so ClickHouse converts into whatever the target column is (Int32 into Int64, a uuid's
 * text into UUID) on INSERT … SELECT.
 *
 * The framing is that of client protocol version 0, which `file()` and an HTTP `input()` read unless
 * told otherwise: no block info before a block, no serialization kinds after a type. Within a
 * column: a Nullable's null map (a byte per row, 1 for NULL) and then its values for every row (a
 * NULL row's value is any value of the type: zeros here); fixed-width values little-endian; a
 * String as a varint length and its bytes; an Array as the running end offset of each row (UInt64),
 * then its elements as one column.
 */
export function wireType(type: LogicalType): string {
  // A uuid goes as its text, which ClickHouse parses into a UUID column; the rest as stored.
  return clickhouseTypeSql(type, "String");
}

/** A column's wire type: Nullable, but for lists (an Array cannot be NULL in ClickHouse; a NULL list is written empty). */
function wireColumnType(column: Column): string {
  return column.type.kind === "list" ? wireType(column.type) : `Nullable(${wireType(column.type)})`;
}

/** The `input()` / `file()` structure of a batch, which its blocks' names and types match exactly. */
export function wireStructure(schema: readonly Column[]): string {
  return schema.map((c) => `${quoteIdent(c.name)} ${wireColumnType(c)}`).join(", ");
}

/** A growable buffer with the few little-endian writes Native needs. */
class Writer {
  buf: Buffer;
  pos = 0;

  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(Math.max(capacity, 1024));
  }

  ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + bytes) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  varint(v: number): void {
    this.ensure(10);
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
  }

  string(s: string): void {
    const n = s.length;
    if (n <= 42) {
      // At most 126 bytes of UTF-8: a one-byte length, so the text is written once, in place, and
      // encoded here (short strings cost more to hand to Node's encoder than to encode). A
      // surrogate (a character outside the BMP, or a lone one) is left to Node's encoder.
      this.ensure(127);
      const { buf } = this;
      const start = this.pos + 1;
      let at = start;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c < 0x80) buf[at++] = c;
        else if (c < 0x800) {
          buf[at++] = 0xc0 | (c >> 6);
          buf[at++] = 0x80 | (c & 0x3f);
        } else if (c >= 0xd800 && c <= 0xdfff) break;
        else {
          buf[at++] = 0xe0 | (c >> 12);
          buf[at++] = 0x80 | ((c >> 6) & 0x3f);
          buf[at++] = 0x80 | (c & 0x3f);
        }
      }
      const len = i === n ? at - start : buf.write(s, start, "utf8");
      buf[this.pos] = len;
      this.pos = start + len;
      return;
    }
    const len = Buffer.byteLength(s, "utf8");
    this.varint(len);
    this.ensure(len);
    this.pos += this.buf.write(s, this.pos, len, "utf8");
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.copy(b);
  }

  /** Bytes as they are, with no length before them. */
  copy(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  zeros(count: number): void {
    this.ensure(count);
    this.buf.fill(0, this.pos, this.pos + count);
    this.pos += count;
  }

  i16(v: number): void {
    this.ensure(2);
    this.pos = this.buf.writeInt16LE(v, this.pos);
  }

  i32(v: number): void {
    this.ensure(4);
    this.pos = this.buf.writeInt32LE(v, this.pos);
  }

  i64(v: bigint): void {
    this.ensure(8);
    this.pos = this.buf.writeBigInt64LE(v, this.pos);
  }

  /** An unsigned integer under 2^53 as a UInt64. */
  u64(v: number): void {
    this.ensure(8);
    this.buf.writeUInt32LE(v >>> 0, this.pos);
    this.pos = this.buf.writeUInt32LE(Math.floor(v / 4294967296), this.pos + 4);
  }

  f32(v: number): void {
    this.ensure(4);
    this.pos = this.buf.writeFloatLE(v, this.pos);
  }

  f64(v: number): void {
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(v, this.pos);
  }

  /** A two's-complement integer of `bytes` bytes, little-endian (Int128, Int256). */
  wide(v: bigint, bytes: number): void {
    this.ensure(bytes);
    let u = BigInt.asUintN(bytes * 8, v);
    for (let i = 0; i < bytes; i += 8) {
      this.buf.writeBigUInt64LE(u & 0xffff_ffff_ffff_ffffn, this.pos + i);
      u >>= 64n;
    }
    this.pos += bytes;
  }

  take(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

const POW10 = Array.from({ length: MAX_DECIMAL_PRECISION + 1 }, (_, i) => 10n ** BigInt(i));

/** Decimal text scaled to its integer representation; throws SL300 when digits would be lost or it exceeds the precision. */
export function scaledDecimal(text: string, precision: number, scale: number, column: string): bigint {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) throw notFit(column, text, "not a decimal");
  const fraction = m[3] ?? "";
  if (fraction.length > scale && /[^0]/.test(fraction.slice(scale))) {
    throw notFit(column, text, `more than ${scale} digits after the point`);
  }
  const digits = BigInt(`${m[2] || "0"}${fraction.slice(0, scale).padEnd(scale, "0")}`);
  if (digits >= (POW10[precision] as bigint)) throw notFit(column, text, `more than ${precision} digits`);
  return m[1] === "-" ? -digits : digits;
}

function notFit(column: string, value: string, why: string): SqlloadError {
  return new SqlloadError("SL300", `column "${column}": value ${JSON.stringify(value)} does not fit (${why})`);
}

type ValueWriter = (w: Writer, value: unknown) => void;

/** Writes one non-NULL value of a scalar wire type (a list's elements: see writeArray). */
function valueWriter(type: LogicalType, column: string): ValueWriter {
  switch (type.kind) {
    case "boolean":
      return (w, v) => w.u8(v === true || v === 1 ? 1 : 0);
    case "int16":
      return (w, v) => {
        const n = v as number;
        if (!(n >= -32768 && n <= 32767)) throw notFit(column, String(v), "not a 16-bit integer");
        w.i16(n);
      };
    case "int32":
      return (w, v) => w.i32(v as number);
    case "int64":
    case "time":
    case "timestamp":
    case "timestamptz":
      return (w, v) => w.i64(v as bigint);
    case "float32":
      return (w, v) => w.f32(v as number);
    case "float64":
      return (w, v) => w.f64(v as number);
    case "date":
      return (w, v) => w.i32(v as number);
    case "decimal": {
      if (!decimalFits(type)) return (w, v) => w.string(String(v));
      const { precision, scale } = type;
      const bytes = decimalBytes(precision);
      const limit = 10 ** precision;
      return (w, v) => {
        const text = String(v);
        // Most decimals fit a double exactly once scaled: no bigint made for them.
        const value = parseScaled(text, scale);
        if (Number.isNaN(value)) {
          const exact = scaledDecimal(text, precision, scale, column);
          if (bytes === 4) w.i32(Number(exact));
          else if (bytes === 8) w.i64(exact);
          else w.wide(exact, bytes);
          return;
        }
        if (value >= limit || value <= -limit) throw notFit(column, text, `more than ${precision} digits`);
        w.ensure(bytes);
        putScaled(w.buf, w.pos, value, bytes);
        w.pos += bytes;
      };
    }
    case "bytes":
      return (w, v) => w.bytes(v as Uint8Array);
    case "list":
      // A list is a column of its own in Native (offsets, then its elements), not a value.
      throw new SqlloadError("SL900", `column "${column}": a list is written by writeArray, not value by value`);
    default:
      return (w, v) => w.string(v as string);
  }
}

/**
 * Bytes of one value of the column's wire type; 1 for a String, its empty value's length byte. A
 * NULL row's value is that many zeros: the type's zero, or the empty string.
 */
function valueBytes(type: LogicalType): number {
  switch (type.kind) {
    case "boolean":
      return 1;
    case "int16":
      return 2;
    case "int32":
    case "date":
    case "float32":
      return 4;
    case "int64":
    case "time":
    case "timestamp":
    case "timestamptz":
    case "float64":
      return 8;
    case "decimal":
      return decimalFits(type) ? decimalBytes(type.precision) : 1;
    default:
      return 1;
  }
}

function decimalBytes(precision: number): 4 | 8 | 16 | 32 {
  return precision <= 9 ? 4 : precision <= 18 ? 8 : precision <= 38 ? 16 : 32;
}

/**
 * Whether a column's storage (see ColumnVector) is a typed array of exactly its wire type's
 * little-endian values, so the column is copied whole: int32, date, int64, time, timestamps and
 * float64 (int16 and float32 are held wider; booleans are written as 0 or 1 whatever they hold).
 * Only on little-endian machines.
 */
function copiesWhole(type: LogicalType, values: unknown): values is ArrayBufferView {
  return (
    LITTLE_ENDIAN &&
    type.kind !== "boolean" &&
    ArrayBuffer.isView(values) &&
    (values as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT === valueBytes(type)
  );
}

/**
 * The Native blocks of one insert, each batch encoded straight after the last into one buffer that
 * grows as needed: nothing is joined before sending, and no batch keeps a buffer of its own.
 */
export class NativeBlocks {
  private readonly w: Writer;

  constructor(capacity = 1 << 20) {
    this.w = new Writer(capacity);
  }

  /** Bytes encoded so far. */
  get bytes(): number {
    return this.w.pos;
  }

  /** Encodes the batch as one block for `wireStructure(batch.schema)`; a batch that fails to encode leaves nothing. */
  append(batch: RecordBatch): void {
    const start = this.w.pos;
    try {
      writeBlock(this.w, batch);
    } catch (error) {
      this.w.pos = start;
      throw error;
    }
  }

  /** The blocks encoded, as a view of the buffer (append no more until `reset`). */
  take(): Buffer {
    return this.w.take();
  }

  /** Empties it for the next insert's blocks, in the same buffer: its pages are already the process's. */
  reset(): void {
    this.w.pos = 0;
  }
}

/** Encodes a batch as one Native block for `wireStructure(batch.schema)`. */
export function encodeNative(batch: RecordBatch): Buffer {
  const blocks = new NativeBlocks(batch.length * 9 * batch.schema.length + 256);
  blocks.append(batch);
  return blocks.take();
}

function writeBlock(w: Writer, batch: RecordBatch): void {
  const rows = batch.length;
  w.varint(batch.schema.length);
  w.varint(rows);
  batch.schema.forEach((column, c) => {
    w.string(column.name);
    w.string(wireColumnType(column));
    writeColumn(w, column, batch.columns[c] as ColumnVector, rows);
  });
}

function writeColumn(w: Writer, column: Column, vector: ColumnVector, rows: number): void {
  const { type, name } = column;
  if (type.kind === "list") {
    const { values, nulls } = vector;
    const lists: (readonly unknown[])[] = new Array(rows);
    for (let r = 0; r < rows; r++) lists[r] = nulls?.[r] === 1 ? [] : ((values[r] as readonly unknown[] | null) ?? []);
    writeArray(w, type.element, lists, name);
    return;
  }
  // Asked first: text given as bytes is copied as it is, and neither its values nor its NULLs
  // decoded; decimals given as scaled integers neither.
  const fields = type.kind === "text" || type.kind === "json" ? vector.utf8?.() : undefined;
  if (fields) {
    writeUtf8(w, fields, rows);
    return;
  }
  if (type.kind === "decimal" && decimalFits(type)) {
    const scaled = vector.scaled?.(type.scale);
    if (scaled) {
      writeScaled(w, type, name, scaled, rows);
      return;
    }
  }
  const { values, nulls } = vector;
  if (nulls === undefined) w.zeros(rows);
  else {
    w.ensure(rows);
    for (let r = 0; r < rows; r++) w.buf[w.pos + r] = nulls[r] === 1 ? 1 : 0;
    w.pos += rows;
  }
  if (copiesWhole(type, values)) {
    const width = valueBytes(type);
    const start = w.pos;
    w.copy(new Uint8Array(values.buffer, values.byteOffset, rows * width));
    // A NULL row's slot holds anything (ColumnVector): zeros, which every target type converts.
    if (nulls !== undefined) {
      const { buf } = w;
      for (let r = 0; r < rows; r++)
        if (nulls[r] === 1) for (let k = start + r * width; k < start + (r + 1) * width; k++) buf[k] = 0;
    }
    return;
  }
  writeValues(w, type, name, values, (r) => nulls?.[r] === 1, rows);
}

/** Values one by one, a NULL's as zeros. */
function writeValues(
  w: Writer,
  type: LogicalType,
  name: string,
  values: ArrayLike<unknown>,
  isNull: (row: number) => boolean,
  count: number,
): void {
  const write = valueWriter(type, name);
  const blank = valueBytes(type);
  for (let r = 0; r < count; r++) {
    if (isNull(r)) w.zeros(blank);
    else write(w, values[r]);
  }
}

/** Array(T): each row's end offset, then every row's elements as one column (Nullable but for lists). */
function writeArray(w: Writer, element: LogicalType, lists: readonly (readonly unknown[])[], name: string): void {
  // Elements by index up to each list's length, so the offsets and the elements agree whatever
  // the list is held in (a typed array, a sparse array).
  const items: unknown[] = [];
  for (const list of lists) {
    for (let k = 0; k < list.length; k++) items.push(list[k]);
    w.u64(items.length);
  }
  if (element.kind === "list") {
    writeArray(
      w,
      element.element,
      items.map((item) => (item ?? []) as readonly unknown[]),
      name,
    );
    return;
  }
  const isNull = (i: number) => items[i] === null || items[i] === undefined;
  w.ensure(items.length);
  for (let i = 0; i < items.length; i++) w.buf[w.pos + i] = isNull(i) ? 1 : 0;
  w.pos += items.length;
  writeValues(w, element, name, items, isNull, items.length);
}

/** A Nullable(String) from UTF-8 bytes: the null map, then each row's length and bytes. */
function writeUtf8(w: Writer, { buffers, buffer, offset, length }: Utf8Fields, rows: number): void {
  let bytes = 0;
  w.ensure(rows);
  for (let r = 0; r < rows; r++) {
    const len = length[r] as number;
    w.buf[w.pos + r] = len < 0 ? 1 : 0;
    if (len > 0) bytes += len;
  }
  w.pos += rows;
  // A length takes at most 5 bytes (under 2^35).
  w.ensure(bytes + rows * 5);
  const buf = w.buf;
  let pos = w.pos;
  for (let r = 0; r < rows; r++) {
    let len = length[r] as number;
    if (len <= 0) {
      buf[pos++] = 0;
      continue;
    }
    const source = buffers[buffer[r] as number] as Uint8Array;
    const from = offset[r] as number;
    const n = len;
    while (len >= 0x80) {
      buf[pos++] = (len & 0x7f) | 0x80;
      len = Math.floor(len / 128);
    }
    buf[pos++] = len;
    if (n <= 32) for (let b = 0; b < n; b++) buf[pos + b] = source[from + b] as number;
    else buf.set(source.subarray(from, from + n), pos);
    pos += n;
  }
  w.pos = pos;
}

/**
 * A Nullable(Decimal) from scaled integers (ColumnVector.scaled), without a string or a bigint per
 * value: the null map, then each integer in two's complement, little-endian.
 */
function writeScaled(w: Writer, type: { precision: number; scale: number }, column: string, scaled: Float64Array, rows: number) {
  const { precision, scale } = type;
  const bytes = decimalBytes(precision);
  const limit = 10 ** precision;
  w.ensure(rows * (1 + bytes));
  const buf = w.buf;
  for (let r = 0; r < rows; r++) buf[w.pos + r] = Number.isNaN(scaled[r] as number) ? 1 : 0;
  let pos = w.pos + rows;
  for (let r = 0; r < rows; r++) {
    let value = scaled[r] as number;
    if (Number.isNaN(value)) value = 0;
    else if (value >= limit || value <= -limit) throw notFit(column, formatScaled(value, scale), `more than ${precision} digits`);
    putScaled(buf, pos, value, bytes);
    pos += bytes;
  }
  w.pos = pos;
}

/**
 * An integer under 2^53 in magnitude as a Decimal's two's complement of `bytes` bytes, little-endian:
 * the low 32 bits modulo 2^32, the next (signed) by floor division, the rest the sign.
 */
function putScaled(buf: Buffer, pos: number, value: number, bytes: 4 | 8 | 16 | 32): void {
  if (bytes === 4) {
    buf.writeInt32LE(value, pos);
    return;
  }
  buf.writeUInt32LE(value >>> 0, pos);
  buf.writeInt32LE(Math.floor(value / 4294967296), pos + 4);
  if (bytes > 8) buf.fill(value < 0 ? 0xff : 0, pos + 8, pos + bytes);
}
