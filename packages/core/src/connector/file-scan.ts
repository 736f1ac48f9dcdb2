import type { CursorValue } from "../cursor/cursor-value.js";
import type { CursorRange } from "./source.js";

/** The formats a source may hand over as files; the row path reads every other one. */
export type FileScanFormat = "parquet" | "csv";

/**
 * What a source says, when it describes a table, about handing its reads over as files: the
 * engine whose SQL its scans are written in and the files' format. A target whose
 * `fileScanEngines` lists the engine then reads the files itself instead of receiving rows.
 */
export interface FileScanOffer {
  readonly engine: string;
  readonly format: FileScanFormat;
}

/**
 * One read of files, as a query the target runs itself: a SELECT in `engine`'s dialect giving the
 * table's columns by name, each already in the table's type, with exactly the rows the source's
 * `read` would yield for the same request (its range, NULL rule, per-file casts and pruning).
 * `values` and `types` are its bound parameters, in the engine's client's own objects, which
 * only a target of that engine reads.
 */
export interface FileScan {
  readonly engine: string;
  readonly format: FileScanFormat;
  readonly sql: string;
  readonly values: Readonly<Record<string, unknown>>;
  readonly types: Readonly<Record<string, unknown>>;
  /** Session settings the statement's meaning depends on (`TimeZone`), set around it and reset after. */
  readonly settings: Readonly<Record<string, string>>;
  /** How many files it reads (for messages). */
  readonly files: number;
  /**
   * The size of those files on disk. Between scans of an ordered read the runner commits once
   * about 1 GB of files was read since the last commit, as the row path does after 1 GB of rows.
   */
  readonly bytes: number;
  /**
   * A commit must follow this scan before the next one (the read's 1,000-file rule), as a
   * required `commit-point` does on the row path.
   */
  readonly commitAfter: boolean;
}

/** What a commit unit reports after writing a scan. */
export interface FileScanWritten {
  readonly rows: number;
  /**
   * The table's largest cursor value after the write, inside the unit (code point order for
   * text): the read position, as the rows' maximum is on the row path. Null without a cursor.
   */
  readonly max: CursorValue | null;
}

/** What a source table reader is asked for: the same request as `read` gets, minus what only rows carry. */
export interface FileScanRequest {
  readonly range: CursorRange;
  readonly includeNulls: boolean;
  readonly ordered: boolean;
}
