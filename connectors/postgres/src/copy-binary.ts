import { SqlloadError } from "@sqlload/core";

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

/** Postgres counts days and microseconds from 2000-01-01; sqlload from 1970-01-01. */
export const PG_EPOCH_DAYS = 10_957;
export const PG_EPOCH_MICROS = 946_684_800_000_000;
export const PG_EPOCH_MICROS_BIG = 946_684_800_000_000n;

/**
 * On little-endian hosts (all that Node supports in practice) a 64-bit value is two 32-bit words,
 * low first, so int8 and timestamp columns are moved word by word without a BigInt per value.
 */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export const TWO_32 = 4_294_967_296;

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

/** Exact decimal text (`-12.340`, `NaN`, `Infinity`) as a binary `numeric`. Undefined when it is not a number. */
export function encodeNumeric(text: string): Buffer | undefined {
  const special = { NaN: NUMERIC_NAN, Infinity: NUMERIC_PINF, "-Infinity": NUMERIC_NINF }[text];
  if (special !== undefined) {
    const out = Buffer.alloc(8);
    out.writeUInt16BE(special, 4);
    return out;
  }
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return undefined;
  const negative = m[1] === "-";
  const intPart = (m[2] as string).replace(/^0+/, "");
  const fracPart = m[3] ?? "";
  const dscale = fracPart.length;
  // Align on the decimal point: whole groups of four digits on both sides.
  const intPadded = intPart.padStart(Math.ceil(intPart.length / 4) * 4, "0");
  const fracPadded = fracPart.padEnd(Math.ceil(fracPart.length / 4) * 4, "0");
  const groups: number[] = [];
  for (let i = 0; i < intPadded.length; i += 4) groups.push(Number(intPadded.slice(i, i + 4)));
  for (let i = 0; i < fracPadded.length; i += 4) groups.push(Number(fracPadded.slice(i, i + 4)));
  let weight = intPadded.length / 4 - 1;
  let start = 0;
  while (start < groups.length && groups[start] === 0) {
    start++;
    weight--;
  }
  let end = groups.length;
  while (end > start && groups[end - 1] === 0) end--;
  const digits = groups.slice(start, end);
  if (digits.length === 0) weight = 0;
  const out = Buffer.alloc(8 + 2 * digits.length);
  out.writeInt16BE(digits.length, 0);
  out.writeInt16BE(weight, 2);
  out.writeUInt16BE(negative && digits.length > 0 ? NUMERIC_NEG : NUMERIC_POS, 4);
  out.writeInt16BE(dscale, 6);
  digits.forEach((d, i) => {
    out.writeInt16BE(d, 8 + 2 * i);
  });
  return out;
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
