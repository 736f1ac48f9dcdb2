import { COPY_DATA } from "./copy-binary.js";

/**
 * Moves the data of a run of CopyData messages together over their headers, in a memory of its
 * own: the join of CopyDataJoiner. Postgres sends a row per message, about 60 bytes for a narrow
 * table, and moving each row with a call of `copyWithin` cost 37–40 ns a row, about 200 ms of a
 * 5M-row Postgres → Postgres load; the same loop in WebAssembly, one `memory.copy` a row, is about
 * 12 ns. The module is a few dozen instructions, assembled below from their opcodes (the
 * WebAssembly binary format, https://webassembly.github.io/spec/core/binary/), so that nothing
 * is compiled at build or install time.
 *
 * `compact(start, end)` walks the messages in [start, end) of `memory`: each message's data moves
 * down to follow the previous one's, starting 5 bytes after `start` (where the joined message's
 * header goes). It returns the end of the moved data, or -1 unless [start, end) is two or more
 * whole CopyData messages. The memory never grows: a Buffer over it stays valid for its life.
 */
export interface Compactor {
  /** The whole memory, `bytes` long. */
  readonly memory: Buffer;
  compact(start: number, end: number): number;
}

const PAGE_BYTES = 65536;

/** What this file uses of the WebAssembly API (the project's TypeScript libraries do not declare it). */
interface WebAssemblyApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object) => { readonly exports: CompactorExports };
}

interface CompactorExports {
  readonly memory: { readonly buffer: ArrayBuffer };
  readonly compact: (start: number, end: number) => number;
}

/** A compactor over a memory of `bytes` (a multiple of 64 KiB), or undefined where WebAssembly is not available (`node --jitless`). */
export function createCompactor(bytes: number): Compactor | undefined {
  if (bytes % PAGE_BYTES !== 0) throw new Error(`a compactor's memory is whole 64 KiB pages, not ${bytes} bytes`);
  const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (!api) return undefined;
  const pages = bytes / PAGE_BYTES;
  let module = modules.get(pages);
  if (!module) {
    module = new api.Module(moduleBytes(pages));
    modules.set(pages, module);
  }
  const { exports } = new api.Instance(module);
  return { memory: Buffer.from(exports.memory.buffer), compact: exports.compact };
}

const modules = new Map<number, object>();

// Opcodes and type codes of the binary format.
const I32 = 0x7f;
const FUNC = 0x60;
const EMPTY = 0x40;
const BLOCK = 0x02;
const LOOP = 0x03;
const IF = 0x04;
const ELSE = 0x05;
const END = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const I32_LOAD8_U = 0x2d;
const I32_CONST = 0x41;
const I32_NE = 0x47;
const I32_LT_S = 0x48;
const I32_LT_U = 0x49;
const I32_GT_U = 0x4b;
const I32_ADD = 0x6a;
const I32_SUB = 0x6b;
const I32_OR = 0x72;
const I32_SHL = 0x74;
const MEMORY_COPY = [0xfc, 0x0a, 0x00, 0x00];

// The function's locals: its two parameters, then five more.
const START = 0;
const END_AT = 1;
const AT = 2;
const TO = 3;
const LENGTH = 4;
const NEXT = 5;
const COUNT = 6;

const get = (local: number) => [LOCAL_GET, local];
const set = (local: number) => [LOCAL_SET, local];
const i32 = (value: number) => [I32_CONST, ...signedLeb(value)];
/** The byte at `local` + `offset` (a memarg of alignment 1). */
const byteAt = (local: number, offset: number) => [...get(local), I32_LOAD8_U, 0, offset];

/** compact(start, end): see Compactor. Branch depths: 1 leaves the loop's block, 0 starts the loop again. */
const COMPACT = [
  ...[...get(START), ...set(AT)],
  ...[...get(START), ...i32(5), I32_ADD, ...set(TO)],
  ...[BLOCK, EMPTY, LOOP, EMPTY],
  // A header must fit before `end` and be a CopyData one.
  ...[...get(AT), ...i32(5), I32_ADD, ...get(END_AT), I32_GT_U, BR_IF, 1],
  ...[...byteAt(AT, 0), ...i32(COPY_DATA), I32_NE, BR_IF, 1],
  // The length, big-endian, counts its own 4 bytes.
  ...[...byteAt(AT, 1), ...i32(24), I32_SHL, ...byteAt(AT, 2), ...i32(16), I32_SHL, I32_OR],
  ...[...byteAt(AT, 3), ...i32(8), I32_SHL, ...byteAt(AT, 4), I32_OR, I32_OR, ...set(LENGTH)],
  ...[...get(LENGTH), ...i32(4), I32_LT_S, BR_IF, 1],
  ...[...get(AT), ...i32(1), I32_ADD, ...get(LENGTH), I32_ADD, ...set(NEXT)],
  ...[...get(NEXT), ...get(END_AT), I32_GT_U, BR_IF, 1],
  ...[...get(TO), ...get(AT), ...i32(5), I32_ADD, ...get(LENGTH), ...i32(4), I32_SUB, ...MEMORY_COPY],
  ...[...get(TO), ...get(LENGTH), I32_ADD, ...i32(4), I32_SUB, ...set(TO)],
  ...[...get(NEXT), ...set(AT)],
  ...[...get(COUNT), ...i32(1), I32_ADD, ...set(COUNT)],
  ...[BR, 0, END, END],
  // Whole messages up to `end`, and at least two of them.
  ...[...get(AT), ...get(END_AT), I32_NE, ...get(COUNT), ...i32(2), I32_LT_U, I32_OR],
  ...[IF, I32, ...i32(-1), ELSE, ...get(TO), END],
  END,
];

function moduleBytes(pages: number): Uint8Array {
  const name = (text: string) => vector([...Buffer.from(text, "utf8")]);
  const body = [...vector([[5, I32]]), ...COMPACT];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vector([[FUNC, ...vector([I32, I32]), ...vector([I32])]])),
    ...section(3, vector([0])),
    // One memory of exactly `pages` pages: limits with a maximum, equal to the minimum.
    ...section(5, vector([[0x01, ...unsignedLeb(pages), ...unsignedLeb(pages)]])),
    ...section(
      7,
      vector([
        [...name("memory"), 0x02, 0],
        [...name("compact"), 0x00, 0],
      ]),
    ),
    ...section(10, vector([[...unsignedLeb(body.length), ...body]])),
  ]);
}

function section(id: number, content: number[]): number[] {
  return [id, ...unsignedLeb(content.length), ...content];
}

/** A vector: its length, then its items (each a byte, or the bytes of one item). */
function vector(items: readonly (number | readonly number[])[]): number[] {
  return [...unsignedLeb(items.length), ...items.flatMap((item) => (typeof item === "number" ? [item] : [...item]))];
}

function unsignedLeb(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  do {
    const byte = rest & 0x7f;
    rest >>>= 7;
    out.push(rest === 0 ? byte : byte | 0x80);
  } while (rest !== 0);
  return out;
}

function signedLeb(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    const done = (rest === 0 && (byte & 0x40) === 0) || (rest === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}
