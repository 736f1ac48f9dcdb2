import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, writeSync } from "node:fs";

/**
 * One file of the compile cache (require-compiled.ts): V8's code cache of a script, after a header
 * of ours.
 *
 * - "SQLC", the length of V8's data and the first bytes of its SHA-256. V8 checks a cache against
 *   the source, its own version and its flags, but in release builds not the data's bytes: a file
 *   damaged on disk crashed every later run (SIGSEGV) until someone deleted it. A file that does not
 *   match its header counts as no cache (0.3 ms for the DuckDB client's 470 KB).
 * - The kinds of whole runs the cache is known to serve, up to MARKS of them, each as the bytecode
 *   V8 held at that run's exit (require-compiled.ts, GROWTH_BYTES); 0 where there is none. A
 *   project's own code counts in that bytecode, so each project that shares the folder is a kind
 *   of its own: room for 32 of them.
 */
export interface CacheFile {
  readonly data: Buffer;
  readonly marks: readonly number[];
  /** What identifies the data: the header's digest of it. */
  readonly digest: Buffer;
}

export const MARKS = 32;

const MAGIC = 0x53_51_4c_43; // "SQLC"
const DIGEST_BYTES = 8;
const LENGTH_AT = 4;
const DIGEST_AT = LENGTH_AT + 4;
const MARKS_AT = DIGEST_AT + DIGEST_BYTES;
export const HEADER_BYTES = MARKS_AT + 4 * MARKS;

/** The file's data and marks; throws when it is not a whole file of this format (an older sqlload's, cut short, damaged). */
export function parseCacheFile(file: Buffer): CacheFile {
  if (file.length <= HEADER_BYTES || file.readUInt32BE(0) !== MAGIC) throw new Error("not a compile cache file");
  const data = file.subarray(HEADER_BYTES);
  if (file.readUInt32LE(LENGTH_AT) !== data.length) throw new Error("a compile cache file of the wrong length");
  const stored = file.subarray(DIGEST_AT, MARKS_AT);
  if (!digest(data).equals(stored)) throw new Error("a damaged compile cache file");
  return { data, marks: readMarks(file), digest: stored };
}

function readMarks(header: Buffer): number[] {
  const marks: number[] = [];
  for (let i = 0; i < MARKS; i++) {
    const mark = header.readUInt32LE(MARKS_AT + 4 * i);
    if (mark > 0) marks.push(mark);
  }
  return marks;
}

/** The file for V8's `data` and the `marks` it serves (the newest first; past MARKS, the oldest are dropped). */
export function cacheFileBytes(data: Buffer, marks: readonly number[]): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32BE(MAGIC, 0);
  header.writeUInt32LE(data.length, LENGTH_AT);
  digest(data).copy(header, DIGEST_AT);
  markBytes(marks).copy(header, MARKS_AT);
  return Buffer.concat([header, data]);
}

/**
 * Adds `mark` to the marks of the file at `path`, in place, if it still holds the data `loaded`
 * came with: another run may have written it again since (with marks of its own, which this keeps),
 * and the marks of one file's data mean nothing for another's. Read and written through one open
 * file, so a file renamed over it meanwhile is not touched.
 */
export function addMark(path: string, loaded: CacheFile, mark: number): void {
  const fd = openSync(path, "r+");
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    if (readSync(fd, header, 0, HEADER_BYTES, 0) !== HEADER_BYTES || header.readUInt32BE(0) !== MAGIC) return;
    if (!header.subarray(DIGEST_AT, MARKS_AT).equals(loaded.digest)) return;
    writeSync(fd, markBytes([mark, ...readMarks(header)]), 0, 4 * MARKS, MARKS_AT);
  } finally {
    closeSync(fd);
  }
}

function markBytes(marks: readonly number[]): Buffer {
  const bytes = Buffer.alloc(4 * MARKS);
  marks.slice(0, MARKS).forEach((mark, i) => {
    bytes.writeUInt32LE(Math.min(Math.max(Math.round(mark), 0), 0xffff_ffff), 4 * i);
  });
  return bytes;
}

function digest(data: Buffer): Buffer {
  return createHash("sha256").update(data).digest().subarray(0, DIGEST_BYTES);
}
