import type { TableSettings } from "../config/table-settings.js";
import type { WriteStrategy } from "../connector/target.js";
import type { CursorKind } from "../cursor/cursor-kind.js";

/**
 * How a table's load commits (SPEC §6):
 * - `per-window`: one commit per `batch_size` window;
 * - `chunked`: about every `CHUNK_BYTES`, only between distinct cursor values of an ordered read;
 * - `per-read`: once, after the whole read (unordered reads cannot be cut safely);
 * - `swap`: a new table is built and swapped in at the end (`replace`, `--reload`).
 */
export type CommitMode = "per-window" | "chunked" | "per-read" | "swap";

/** Roughly how much an ordered read moves between commits. */
export const CHUNK_BYTES = 1_000_000_000;

/**
 * Whether a `chunked` table its source reckons at `reckonedBytes` is first read without cursor
 * order: at most half a commit, it likely commits once however it is read (run/unordered-read.ts
 * counts what the read really moves, and falls back to cursor order past a commit's bytes).
 */
export function readsUnorderedFirst(
  commit: CommitMode,
  reckonedBytes: number | undefined,
  chunkBytes: number,
  logged: boolean,
): boolean {
  if (commit !== "chunked" || logged || typeof reckonedBytes !== "number") return false;
  return Number.isFinite(reckonedBytes) && reckonedBytes >= 0 && reckonedBytes * 2 <= chunkBytes;
}

export function commitMode(input: {
  strategy: WriteStrategy;
  reload: boolean;
  settings: TableSettings;
  cursorKind?: CursorKind | undefined;
  /** The source reads in cursor order cheaply (its cursor leads an index). */
  orderedSource: boolean;
}): CommitMode {
  if (input.strategy === "replace" || input.reload) return "swap";
  const batch = input.settings.batchSize;
  if (batch !== undefined && batch !== "none") return "per-window";
  if (batch !== "none" && input.orderedSource && input.cursorKind && input.cursorKind !== "text") return "chunked";
  return "per-read";
}
