import { SqlloadError } from "@sqlload/core";
import type { WireType } from "./postgres-dialect.js";

/**
 * Shared pieces of COPY's binary format (https://www.postgresql.org/docs/current/sql-copy.html):
 * an 11-byte signature, flags and a header extension, then per row a 16-bit field count and per
 * field a 32-bit length (-1 for NULL) and the type's send/recv bytes, then -1 as the trailer.
 * Integers are big-endian throughout.
 */
export const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

/** Signature, flags 0, extension length 0. */
export const HEADER = Buffer.concat([SIGNATURE, Buffer.alloc(8)]);

export const TRAILER = Buffer.from([0xff, 0xff]);

/** The protocol message that carries COPY data, either way: type 'd', a 32-bit length (itself included), the data. */
export const COPY_DATA = 0x64;

/** Postgres counts days and microseconds from 2000-01-01; sqlload from 1970-01-01. */
export const PG_EPOCH_DAYS = 10_957;
export const PG_EPOCH_MICROS = 946_684_800_000_000;
export const PG_EPOCH_MICROS_BIG = 946_684_800_000_000n;

/**
 * On little-endian hosts (all that Node supports in practice) a 64-bit value is two 32-bit words,
 * low first, so int8 and timestamp columns are moved word by word without a BigInt per value.
 */
export { LITTLE_ENDIAN } from "@sqlload/core";

export const TWO_32 = 4_294_967_296;

/**
 * Where a batch read by this connector keeps the COPY bytes of its rows. A Postgres target whose
 * columns have the same binary formats writes those bytes as they are instead of encoding the
 * batch again (the native Postgres-to-Postgres path). A batch rebuilt by anyone (filtered,
 * projected, sliced) is a new object without it, so the bytes always match the rows they carry.
 * Versioned, so two copies of the connector of different formats never share it.
 */
export const RAW_COPY = Symbol.for("@sqlload/connector-postgres/raw-copy-binary/v2");

export interface RawCopy {
  /** The rows as whole CopyData protocol messages (type byte, length, data), ready to send on. */
  readonly parts: readonly Buffer[];
  /** The binary format of each column, in the batch's column order. */
  readonly wires: readonly WireType[];
}

export function rawCopyOf(batch: object): RawCopy | undefined {
  return (batch as { [RAW_COPY]?: RawCopy })[RAW_COPY];
}

/** Marks a batch with its COPY bytes (not enumerable: invisible to comparisons and spreads). */
export function attachRawCopy<T extends object>(batch: T, raw: RawCopy): T {
  Object.defineProperty(batch, RAW_COPY, { value: raw, enumerable: false });
  return batch;
}

/** Whether bytes sent in `from` can be received as `to` unchanged. */
export function sameWire(from: WireType, to: WireType): boolean {
  if (from.kind === "unsupported" || to.kind === "unsupported") return false;
  if (from.kind === "array" || to.kind === "array") {
    return (
      from.kind === "array" && to.kind === "array" && from.elementOid === to.elementOid && sameWire(from.element, to.element)
    );
  }
  return from.kind === to.kind;
}

const NUMERIC_POS = 0x0000;
const NUMERIC_NEG = 0x4000;
const NUMERIC_NAN = 0xc000;
const NUMERIC_PINF = 0xd000;
const NUMERIC_NINF = 0xf000;

/** `0000`…`9999`: one base-10000 digit as the four decimal digits it stands for. */
const PAD4: string[] = Array.from({ length: 10_000 }, (_, i) => String(i).padStart(4, "0"));

/** A binary `numeric` (base-10000 digits, weight, sign, display scale) as exact decimal text. */
export function decodeNumeric(view: DataView, offset: number): string {
  const ndigits = view.getInt16(offset);
  const weight = view.getInt16(offset + 2);
  const sign = view.getUint16(offset + 4);
  const dscale = view.getInt16(offset + 6);
  if (sign === NUMERIC_NAN) return "NaN";
  if (sign === NUMERIC_PINF) return "Infinity";
  if (sign === NUMERIC_NINF) return "-Infinity";
  const base = offset + 8;
  let text: string;
  if (weight < 0) text = "0";
  else {
    // The first digit without its leading zeros, then four digits per base-10000 digit.
    text = ndigits > 0 ? String(view.getInt16(base)) : "0";
    for (let i = 1; i <= weight; i++) text += i < ndigits ? PAD4[view.getInt16(base + 2 * i)] : "0000";
  }
  if (dscale > 0) {
    let fraction = "";
    for (let i = weight + 1; fraction.length < dscale; i++) {
      fraction += i >= 0 && i < ndigits ? PAD4[view.getInt16(base + 2 * i)] : "0000";
    }
    text += `.${fraction.length === dscale ? fraction : fraction.slice(0, dscale)}`;
  }
  return sign === NUMERIC_NEG && ndigits > 0 ? `-${text}` : text;
}

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);
const EXACT = 2 ** 53;

/**
 * A binary `numeric` times 10^`scale` as an exact integer in a double (ColumnVector.scaled), or NaN
 * when it is not one: NaN or an infinity, a nonzero digit below the scale (the value would be
 * rounded), or 2^53 or more (a double would round it).
 */
export function scaleNumeric(view: DataView, offset: number, scale: number): number {
  const ndigits = view.getInt16(offset);
  const weight = view.getInt16(offset + 2);
  const sign = view.getUint16(offset + 4);
  if (sign !== NUMERIC_POS && sign !== NUMERIC_NEG) return Number.NaN;
  let value = 0;
  for (let i = 0; i < ndigits; i++) {
    const digit = view.getInt16(offset + 8 + 2 * i);
    // The power of ten this base-10000 digit's last decimal digit stands for, at the scale.
    const exponent = 4 * (weight - i) + scale;
    if (exponent >= 0) {
      // A term or a sum past 2^53 is refused below; one past 10^22 is far past it.
      value += exponent < POW10.length ? digit * (POW10[exponent] as number) : Number.POSITIVE_INFINITY;
    } else if (exponent > -4) {
      const unit = POW10[-exponent] as number;
      if (digit % unit !== 0) return Number.NaN;
      value += digit / unit;
    } else if (digit !== 0) return Number.NaN;
  }
  if (!(value < EXACT)) return Number.NaN;
  return sign === NUMERIC_NEG ? -value : value;
}

/** The most bytes `writeNumeric` writes for a text of `length` characters. */
export function numericSizeBound(length: number): number {
  return 8 + 2 * (Math.ceil(length / 4) + 2);
}

/**
 * Writes exact decimal text (`-12.340`, `NaN`, `Infinity`) as a binary `numeric` at `offset`, where
 * `numericSizeBound(text.length)` bytes are free. Returns the bytes written, or -1 when the text is
 * not a decimal number. Parses characters in place: this runs once per value on the write path.
 */
export function writeNumeric(text: string, view: DataView, offset: number): number {
  let n = text.length;
  let i = 0;
  if (n > 0 && (text.charCodeAt(0) <= 32 || text.charCodeAt(n - 1) <= 32)) return writeNumeric(text.trim(), view, offset);
  // Looked up only when the text starts like one: indexing an object by an arbitrary string
  // interns the string, which cost more than the whole parse.
  const lead = text.charCodeAt(0) === 45 ? text.charCodeAt(1) : text.charCodeAt(0);
  const special = lead === 78 || lead === 73 ? SPECIALS[text] : undefined; // N, I
  if (special !== undefined) {
    view.setInt32(offset, 0);
    view.setUint16(offset + 4, special);
    view.setInt16(offset + 6, 0);
    return 8;
  }
  const first = text.charCodeAt(0);
  const negative = first === 45; // "-"
  if (negative || first === 43) i = 1; // "+"
  let dot = text.indexOf(".", i);
  if (dot < 0) dot = n;
  let intStart = i;
  while (intStart < dot && text.charCodeAt(intStart) === 48) intStart++;
  const intLen = dot - intStart;
  const fracStart = dot < n ? dot + 1 : n;
  const fracLen = n - fracStart;
  if (dot === i && fracLen === 0) return -1;
  const intGroups = Math.ceil(intLen / 4);
  let weight = intGroups - 1;
  let p = offset + 8;
  let ndigits = 0;
  let written = 0;
  let started = false;
  // Integer groups, the first one short; then fraction groups, the last one padded with zeros.
  const groups = intGroups + Math.ceil(fracLen / 4);
  for (let g = 0; g < groups; g++) {
    let value = 0;
    let from: number;
    let to: number;
    if (g < intGroups) {
      to = dot - (intGroups - 1 - g) * 4;
      from = Math.max(intStart, to - 4);
    } else {
      from = fracStart + (g - intGroups) * 4;
      to = from + 4;
    }
    for (let c = from; c < to; c++) {
      const d = c < n ? text.charCodeAt(c) - 48 : 0;
      if (d < 0 || d > 9) return -1;
      value = value * 10 + d;
    }
    if (!started && value === 0) {
      // A leading zero group: only fraction groups can be (the integer part has no leading zeros).
      weight--;
      continue;
    }
    started = true;
    view.setInt16(p, value);
    p += 2;
    written++;
    if (value !== 0) ndigits = written;
  }
  // Characters between the sign and the dot must be digits too.
  for (let c = i; c < intStart; c++) if (text.charCodeAt(c) !== 48) return -1;
  if (ndigits === 0) weight = 0;
  view.setInt16(offset, ndigits);
  view.setInt16(offset + 2, weight);
  view.setUint16(offset + 4, negative && ndigits > 0 ? NUMERIC_NEG : NUMERIC_POS);
  view.setInt16(offset + 6, fracLen);
  n = 8 + 2 * ndigits;
  return n;
}

const SPECIALS: Record<string, number> = { NaN: NUMERIC_NAN, Infinity: NUMERIC_PINF, "-Infinity": NUMERIC_NINF };

/** `writeNumeric` into a new buffer; undefined when the text is not a decimal number. */
export function encodeNumeric(text: string): Buffer | undefined {
  const out = Buffer.alloc(numericSizeBound(text.length));
  const size = writeNumeric(text, new DataView(out.buffer, out.byteOffset, out.byteLength), 0);
  return size < 0 ? undefined : out.subarray(0, size);
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** 16 bytes as `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`. */
export function decodeUuid(buf: Uint8Array, o: number): string {
  const h = (i: number) => HEX[buf[o + i] as number] as string;
  return `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
}

/** Writes a UUID's 16 bytes; accepts the forms Postgres accepts (braces, no dashes, upper case). */
export function encodeUuid(text: string, out: Buffer, offset: number): boolean {
  const hex = text.replace(/^\{|\}$/g, "").replaceAll("-", "");
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) return false;
  out.write(hex, offset, 16, "hex");
  return true;
}

export function formatError(what: string): SqlloadError {
  return new SqlloadError("SL304", `COPY binary data is malformed: ${what}`);
}
