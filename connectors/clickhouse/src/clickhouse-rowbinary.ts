import { endianness } from "node:os";
import {
  type Column,
  type ColumnVector,
  formatLogicalType,
  formatScaled,
  type LogicalType,
  type RecordBatch,
  SqlloadError,
  type Utf8Fields,
} from "@sqlload/core";
import { quoteIdent } from "./clickhouse-dialect.js";
import { decimalFits, MAX_DECIMAL_PRECISION } from "./clickhouse-types.js";

/**
 * RowBinary: ClickHouse's row-wise binary input, the cheapest format for both sides (no text to
 * print or parse). Rows are encoded in the types of the batch's own logical types (the "wire"
 * types below) and read through `input()` / `file()` with that structure, so ClickHouse converts
 * into whatever the target column is (Int32 into Int64, a uuid's text into UUID) on INSERT … SELECT.
 */
export function wireType(type: LogicalType): string {
  switch (type.kind) {
    case "boolean":
      return "Bool";
    case "int16":
      return "Int16";
    case "int32":
      return "Int32";
    case "int64":
      return "Int64";
    case "float32":
      return "Float32";
    case "float64":
      return "Float64";
    case "decimal":
      return decimalFits(type) ? `Decimal(${type.precision}, ${type.scale})` : "String";
    case "date":
      return "Date32";
    case "time":
      return "Time64(6)";
    case "timestamp":
    case "timestamptz":
      return "DateTime64(6, 'UTC')";
    case "list":
      return `Array(${type.element.kind === "list" ? wireType(type.element) : `Nullable(${wireType(type.element)})`})`;
    default:
      // text, json, bytes, and uuid as its text (ClickHouse parses it into a UUID column).
      return "String";
  }
}

/** The `input()` / `file()` structure of a batch: every column Nullable but lists (which cannot be). */
export function wireStructure(schema: readonly Column[]): string {
  return schema
    .map((c) => `${quoteIdent(c.name)} ${c.type.kind === "list" ? wireType(c.type) : `Nullable(${wireType(c.type)})`}`)
    .join(", ");
}

/** A growable buffer with the few little-endian writes RowBinary needs. */
class Writer {
  buf: Buffer;
  pos = 0;

  /** `slack`: bytes every reservation adds, so a row's fixed-width writes fit after its variable ones. */
  constructor(
    capacity: number,
    private readonly slack = 0,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(capacity, 1024));
  }

  ensure(bytes: number): void {
    if (this.pos + bytes + this.slack <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + bytes + this.slack) size *= 2;
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
    if (s.length <= 42) {
      // At most 126 bytes of UTF-8: a one-byte length, so the text is written once, in place.
      this.ensure(127);
      const len = this.buf.write(s, this.pos + 1, "utf8");
      this.buf[this.pos] = len;
      this.pos += len + 1;
      return;
    }
    const len = Buffer.byteLength(s, "utf8");
    this.varint(len);
    this.ensure(len);
    this.pos += this.buf.write(s, this.pos, len, "utf8");
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
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

type ValueWriter = (w: Writer, value: unknown) => void;

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

function valueWriter(type: LogicalType, column: string): ValueWriter {
  switch (type.kind) {
    case "boolean":
      return (w, v) => w.u8(v === true || v === 1 ? 1 : 0);
    case "int16":
      return (w, v) => w.i16(v as number);
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
      if (precision <= 9) return (w, v) => w.i32(Number(scaledDecimal(String(v), precision, scale, column)));
      if (precision <= 18) return (w, v) => w.i64(scaledDecimal(String(v), precision, scale, column));
      const bytes = precision <= 38 ? 16 : 32;
      return (w, v) => w.wide(scaledDecimal(String(v), precision, scale, column), bytes);
    }
    case "bytes":
      return (w, v) => w.bytes(v as Uint8Array);
    case "list": {
      const element = valueWriter(type.element, column);
      const nullable = type.element.kind !== "list";
      return (w, v) => {
        const items = v as readonly unknown[];
        w.varint(items.length);
        for (const item of items) {
          if (nullable) {
            if (item === null || item === undefined) {
              w.u8(1);
              continue;
            }
            w.u8(0);
          }
          element(w, item ?? []);
        }
      };
    }
    default:
      return (w, v) => w.string(v as string);
  }
}

/**
 * Bytes per value of a column whose storage is a typed array holding the wire type's bytes in its
 * low-order bytes (int16 lives in an Int32Array): such values are copied byte by byte, with no
 * number or bigint conversion. Only on little-endian machines, the byte order of RowBinary.
 */
function copyWidth(type: LogicalType): number | undefined {
  if (!LITTLE_ENDIAN) return undefined;
  switch (type.kind) {
    case "int16":
      return 2;
    case "int32":
    case "date":
      return 4;
    case "int64":
    case "time":
    case "timestamp":
    case "timestamptz":
    case "float64":
      return 8;
    default:
      return undefined;
  }
}

const LITTLE_ENDIAN = endianness() === "LE";

type RowWriter = (w: Writer, row: number) => void;

function rowWriter(column: Column, vector: ColumnVector): { write: RowWriter; fixed: number } {
  // Asked first: text given as bytes is copied as it is, and neither its values nor its NULLs decoded;
  // decimals given as scaled integers neither.
  const fields = column.type.kind === "text" || column.type.kind === "json" ? vector.utf8?.() : undefined;
  if (fields) return { write: utf8Writer(fields), fixed: 1 };
  if (column.type.kind === "decimal" && decimalFits(column.type)) {
    const scaled = vector.scaled?.(column.type.scale);
    if (scaled) return { write: scaledWriter(column.type, column.name, scaled), fixed: 1 };
  }
  const nulls = vector.nulls;
  const values = vector.values;
  if (column.type.kind === "list") {
    // An array cannot be NULL in ClickHouse: a NULL list is written empty.
    const write = valueWriter(column.type, column.name);
    return { write: (w, r) => write(w, nulls?.[r] === 1 ? [] : values[r]), fixed: 0 };
  }
  const width = copyWidth(column.type);
  const typed = values as unknown as ArrayBufferView & { BYTES_PER_ELEMENT?: number };
  if (width !== undefined && ArrayBuffer.isView(typed) && typed.BYTES_PER_ELEMENT) {
    const bytes = new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
    const stride = typed.BYTES_PER_ELEMENT;
    return {
      fixed: 1 + width,
      write: (w, r) => {
        const buf = w.buf;
        if (nulls?.[r] === 1) {
          buf[w.pos++] = 1;
          return;
        }
        let pos = w.pos;
        buf[pos++] = 0;
        for (let k = 0, at = r * stride; k < width; k++) buf[pos++] = bytes[at + k] as number;
        w.pos = pos;
      },
    };
  }
  const write = valueWriter(column.type, column.name);
  return {
    fixed: 1,
    write: (w, r) => {
      if (nulls?.[r] === 1) {
        w.buf[w.pos++] = 1;
        return;
      }
      w.buf[w.pos++] = 0;
      write(w, values[r]);
    },
  };
}

/**
 * A Nullable(Decimal) written from scaled integers (ColumnVector.scaled), without a string or a
 * bigint per value: the NULL flag, then the integer in two's complement, little-endian.
 */
function scaledWriter(type: { precision: number; scale: number }, column: string, scaled: Float64Array): RowWriter {
  const { precision, scale } = type;
  const bytes = precision <= 9 ? 4 : precision <= 18 ? 8 : precision <= 38 ? 16 : 32;
  const limit = 10 ** precision;
  return (w, r) => {
    const value = scaled[r] as number;
    if (Number.isNaN(value)) {
      w.u8(1);
      return;
    }
    if (value >= limit || value <= -limit) {
      throw notFit(column, formatScaled(value, scale), `more than ${precision} digits`);
    }
    w.ensure(1 + bytes);
    const { buf, pos } = w;
    buf[pos] = 0;
    if (bytes === 4) buf.writeInt32LE(value, pos + 1);
    else {
      // The low 32 bits modulo 2^32, the next (signed) by floor division, the rest the sign.
      buf.writeUInt32LE(value >>> 0, pos + 1);
      buf.writeInt32LE(Math.floor(value / 4294967296), pos + 5);
      if (bytes > 8) buf.fill(value < 0 ? 0xff : 0, pos + 9, pos + 1 + bytes);
    }
    w.pos = pos + 1 + bytes;
  };
}

/** A Nullable(String) written from UTF-8 bytes: the NULL flag, then the length and the bytes. */
function utf8Writer({ buffers, buffer, offset, length }: Utf8Fields): RowWriter {
  return (w, r) => {
    const len = length[r] as number;
    if (len < 0) {
      w.buf[w.pos++] = 1;
      return;
    }
    w.buf[w.pos++] = 0;
    const from = offset[r] as number;
    w.bytes((buffers[buffer[r] as number] as Uint8Array).subarray(from, from + len));
  };
}

/** Encodes a batch as RowBinary for `wireStructure(batch.schema)`. */
export function encodeRowBinary(batch: RecordBatch): Buffer {
  const writers = batch.schema.map((column, c) => rowWriter(column, batch.columns[c] as ColumnVector));
  const fixed = writers.reduce((sum, w) => sum + w.fixed, 0);
  const w = new Writer(batch.length * (fixed + 8 * writers.length), fixed);
  for (let r = 0; r < batch.length; r++) {
    // Room for every fixed-width byte of the row; variable writes reserve their own (plus this).
    w.ensure(fixed);
    for (const writer of writers) writer.write(w, r);
  }
  return w.take();
}

/** A short description of a batch's schema, to tell buffered batches of different shapes apart. */
export function schemaKey(schema: readonly Column[]): string {
  return schema.map((c) => `${c.name}\u0000${formatLogicalType(c.type)}`).join("\u0001");
}
