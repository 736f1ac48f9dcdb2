import type { DuckDBType } from "@duckdb/node-api";
import { DuckDBTypeId } from "./duckdb-client.js";
import { quoteIdent } from "./duckdb-dialect.js";
import { COLUMN_BYTES, FIXED, type ReadShape } from "./duckdb-read-memory.js";

/**
 * A page's rows hold about this many bytes, on the average row of the sample. A range of row ids
 * is one query, 2 ms apiece on this machine whatever it reads. 20,000 rows of 50 KB into Postgres
 * through the CLI: 8 MB pages 9.97–14.50 s, peak 604–631 MB; 32 MB pages 8.68–12.23 s, 778–814 MB;
 * one streamed query 9.41–15.34 s, 2,376–2,467 MB (bench/README.md, 2026-12-07 04:19 on).
 */
export const PAGE_BYTES = 8 * 1024 * 1024;

/** A sample never reads more than this were each of its rows the widest. */
export const SAMPLE_CAP_BYTES = 64 * 1024 * 1024;

/**
 * Values DuckDB holds while it reads a page: the values themselves, and blocks of those that span
 * several (12 rows of 5 MB read under 96 MB, not under 48 MB).
 */
const PAGE_HEADROOM = 2;

/** The most rows a sample reads. */
const SAMPLE_ROWS = 256;

/** How a table of long text is read: pages of `rows` rows of the read's range, with the memory_limit they need. */
export interface PagePlan {
  readonly rows: number;
  readonly need: number;
}

/** The widest row the statistics allow, in bytes; undefined when they do not bound it. */
function widestRow(shape: ReadShape): number | undefined {
  return shape.textBytes === undefined ? undefined : shape.slotBytes + shape.textBytes;
}

/** The memory_limit a read of pages of `rows` rows needs, beside READ_BASE_BYTES: every row the widest. */
function pageNeed(shape: ReadShape, threads: number, rows: number, widest: number): number {
  return threads * shape.leaves * COLUMN_BYTES + PAGE_HEADROOM * rows * widest;
}

/**
 * How many rows a sample of this shape's table reads (none when its reads are not paged), and
 * the memory_limit it needs: at most SAMPLE_CAP_BYTES of its widest rows.
 */
export function samplePlan(shape: ReadShape, threads: number): PagePlan | undefined {
  const widest = widestRow(shape);
  if (!shape.long || widest === undefined) return undefined;
  const rows = Math.max(1, Math.min(SAMPLE_ROWS, Math.floor(SAMPLE_CAP_BYTES / widest)));
  return { rows, need: pageNeed(shape, threads, rows, widest) };
}

/**
 * Pages for a read of a table of long text, from the sample's average bytes of text a row
 * (undefined when it found no rows: taken as the widest): each page holds PAGE_BYTES of average
 * rows. Not bounded by the widest row, which a single value can set for the whole table (one of
 * 80 MB among rows of 50 KB made pages of one row: 20,000 queries); the limit is, so a page of
 * the widest rows still reads (up to DuckDB's own limit, where the raise stops).
 */
export function pagePlan(shape: ReadShape, threads: number, sampledTextBytes: number | undefined): PagePlan | undefined {
  const widest = widestRow(shape);
  if (!shape.long || widest === undefined) return undefined;
  const average = sampledTextBytes === undefined ? widest : shape.slotBytes + sampledTextBytes;
  const rows = Math.max(1, Math.floor(PAGE_BYTES / Math.max(average, 1)));
  return { rows, need: pageNeed(shape, threads, rows, widest) };
}

/**
 * The bytes of a row's text and blobs, as SQL summing its columns; undefined when a column is
 * neither fixed nor top-level text, blob or bits (a struct's or a list's text is not summed here,
 * so such a table is not paged).
 */
export function rowTextBytesSql(columns: readonly { readonly name: string; readonly type: DuckDBType }[]): string | undefined {
  const terms: string[] = [];
  for (const { name, type } of columns) {
    if (FIXED.has(type.typeId)) continue;
    if (type.typeId === DuckDBTypeId.VARCHAR) terms.push(`coalesce(strlen(${quoteIdent(name)}), 0)`);
    else if (type.typeId === DuckDBTypeId.BLOB || type.typeId === DuckDBTypeId.BIT)
      terms.push(`coalesce(octet_length(${quoteIdent(name)}), 0)`);
    else return undefined;
  }
  return terms.length > 0 ? terms.join(" + ") : undefined;
}
