import {
  type CursorKind,
  type CursorValue,
  cursorToString,
  formatDays,
  formatMicros,
  parseDateDays,
  parseTimestampMicros,
} from "@sqlload/core";

/** The folder name Hive (and DuckDB) give a NULL partition value. */
export const NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__";

/**
 * The Hive partition values in a file's path: each folder named `key=value` (DuckDB reads the
 * same folders as columns). Values are percent-decoded; a NULL partition is null.
 */
export function partitionsOf(path: string): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const parts = path.split(/[/\\]/);
  for (const part of parts.slice(0, -1)) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const raw = part.slice(eq + 1);
    out.set(part.slice(0, eq), raw === NULL_PARTITION ? null : safeDecode(raw));
  }
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A partition folder's value as a cursor value of `kind`; undefined when it does not parse. */
export function partitionCursor(kind: CursorKind, text: string): CursorValue | undefined {
  switch (kind) {
    case "integer":
      return /^-?\d+$/.test(text.trim()) ? { kind, value: BigInt(text.trim()) } : undefined;
    case "date": {
      const days = parseDateDays(text.trim());
      return days === undefined ? undefined : { kind, value: days };
    }
    case "timestamp": {
      const micros = parseTimestampMicros(text.trim());
      return micros === undefined ? undefined : { kind, value: micros };
    }
    case "text":
      return { kind, value: text };
  }
}

/**
 * The folder name for a partition value the files target writes: `day=2026-10-01`. Characters
 * that are unsafe in a file name (and `%`, `=`) are percent-encoded, as Hive does; NULL is
 * Hive's default partition.
 */
export function partitionFolder(column: string, value: CursorValue | string | null): string {
  const text =
    value === null ? NULL_PARTITION : typeof value === "string" ? encodeSegment(value) : encodeSegment(partitionText(value));
  return `${encodeSegment(column)}=${text}`;
}

function partitionText(value: CursorValue): string {
  switch (value.kind) {
    case "date":
      return formatDays(value.value);
    case "timestamp":
      // Readable and sortable; DuckDB reads it back as a timestamp.
      return formatMicros(value.value).slice(0, 26);
    default:
      return cursorToString(value);
  }
}

const UNSAFE = '%/\\:*?"<>|=#';

/** Percent-encodes what a folder name must not hold, keeping other Unicode as it is. */
export function encodeSegment(text: string): string {
  // Folder names only organize files (each file's value lives in its rows and in the manifest),
  // so a name two values share is harmless.
  if (text === "") return "__EMPTY__";
  if (text === "." || text === "..") return text.replaceAll(".", "%2E");
  let out = "";
  for (const c of text) {
    const code = c.codePointAt(0) as number;
    out += code < 0x20 || code === 0x7f || UNSAFE.includes(c) ? `%${code.toString(16).toUpperCase().padStart(2, "0")}` : c;
  }
  return out;
}
