import type { CursorKind } from "../cursor/cursor-kind.js";
import type { CursorValue } from "../cursor/cursor-value.js";
import type { Json } from "../state/json.js";
import type { SourceCapabilities } from "./capabilities.js";
import type { FileScan, FileScanOffer, FileScanRequest } from "./file-scan.js";
import type { Column } from "./logical-types.js";
import type { RecordBatch } from "./record-batch.js";
import type { SourceTableRef } from "./table-ref.js";

/** A half-open cursor range. `from` is inclusive unless `fromInclusive` is false; `to` is exclusive. */
export interface CursorRange {
  readonly from?: CursorValue | undefined;
  readonly fromInclusive?: boolean | undefined;
  readonly to?: CursorValue | undefined;
}

/** What the engine asks a source about one table before reading it. */
export interface SourceTableRequest {
  readonly table: SourceTableRef;
  readonly cursorColumn?: string | undefined;
  /** Columns to read; all when absent. */
  readonly columns?: readonly string[] | undefined;
  /** Connector-specific table settings from `sqlload.toml` (validated by the connector's config schema). */
  readonly options: Readonly<Record<string, unknown>>;
}

export interface SourceTableInfo {
  /** The columns that will be read; undefined when only the data can tell (a table function without `columns`). */
  readonly columns: readonly Column[] | undefined;
  /** The cursor column's kind, when the source knows it. */
  readonly cursorKind?: CursorKind | undefined;
  readonly cursorNullable?: boolean | undefined;
  /** Lines `plan` shows under the table: an index to create, a collation, a held snapshot. */
  readonly notes?: readonly string[] | undefined;
  /** Optional: the collation each text column sets (column name → collation); `plan` warns about one on the cursor. */
  readonly collations?: Readonly<Record<string, string>> | undefined;
  /** Lines `plan` shows only when the table is read in windows (a snapshot held across them). */
  readonly windowNotes?: readonly string[] | undefined;
  /** Settings the table declares itself (a TypeScript table's options), below those of `sqlload.toml`. */
  readonly settings?: Readonly<Record<string, unknown>> | undefined;
  /**
   * The table keeps a position the data cannot carry (an API's sync token) in the run log:
   * reads get it as `ReadRequest.state` and yield `checkpoint`s to move it.
   */
  readonly loggedState?: boolean | undefined;
  /** Whether the cursor column leads an index, so reading in cursor order is cheap. */
  readonly cursorIndexed?: boolean | undefined;
  /**
   * Roughly how many bytes reading the whole table moves, when the source can tell without
   * reading it or taking a lock (a Postgres source counts the pages its statistics give). Core
   * first reads a table that says at most half a commit without cursor order, counting the
   * `bytes` of every batch, and reads it again in order once they pass a commit's worth
   * (SPEC §6), so an estimate that is low costs time, never a commit. A source that gives it
   * gives `bytes` on every batch.
   */
  readonly fullReadBytes?: number | undefined;
  /** The table's reads can be handed over as files (`SourceTableReader.fileScans`); core decides whether they are. */
  readonly fileScan?: FileScanOffer | undefined;
}

export interface ReadRequest {
  readonly range: CursorRange;
  /** A full read includes rows whose cursor is NULL; an incremental one never does. */
  readonly includeNulls: boolean;
  /** Read in cursor order (NULLs first), so a commit between distinct values is safe. */
  readonly ordered: boolean;
  /** For windowed tables: which window this is. */
  readonly window?: { readonly index: number; readonly count: number } | undefined;
  /** The position the last successful run left (logged tables). */
  readonly state?: Json | undefined;
  readonly signal: AbortSignal;
  /**
   * Awaited before each request a source makes to a paced API (`rate_limit.requests_per_second`):
   * resolves when the request may go. Absent when the table is not paced.
   */
  readonly pace?: (() => Promise<void>) | undefined;
}

/**
 * What a read yields. `commit-point` marks a place where everything yielded so far may be
 * committed without splitting rows of one cursor value (sources reading in cursor order);
 * `checkpoint` is a logged table's position after the rows before it.
 *
 * A batch lives until the item after it is asked for: the engine reads its columns, and has the
 * target write it, before asking. A source may then reuse the memory its columns are read from
 * (the Postgres source reuses its socket's buffers). Values read from a column before that stay
 * valid; a target that keeps a batch past `write` reads its columns first (`heldBatch`).
 */
export type SourceItem =
  | {
      readonly kind: "batch";
      readonly batch: RecordBatch;
      /** What the batch weighed on the wire, when the source knows: required of one that gives `fullReadBytes`. */
      readonly bytes?: number;
    }
  | {
      readonly kind: "commit-point";
      /** Bytes read since the previous commit point: the engine commits once about `CHUNK_BYTES` have passed. */
      readonly bytesSinceLast?: number;
      /** Commit here whatever the bytes (a files source commits every 1,000 files). */
      readonly required?: boolean;
    }
  | { readonly kind: "checkpoint"; readonly state: Json };

/** One table held open for its load: a Postgres source keeps one snapshot across all windows. */
export interface SourceTableReader {
  read(request: ReadRequest): AsyncIterable<SourceItem>;
  /** The largest cursor value in the source (for an integer cursor's end). */
  maxCursor?(): Promise<CursorValue | null>;
  /** The first cursor value at or after `value`, to skip empty windows; null when none. */
  firstCursorAtOrAfter?(value: CursorValue): Promise<CursorValue | null>;
  /**
   * Tables whose info has `fileScan`: the read `request` asks for, as scans of its files, in the
   * order `read` would yield their rows (empty: no rows). Core runs them through a target that
   * reads such files instead of calling `read`.
   */
  fileScans?(request: FileScanRequest): Promise<readonly FileScan[]>;
  close(): Promise<void>;
}

export interface SourceConnection {
  readonly capabilities: SourceCapabilities;
  /** Optional: reaches the server now, so that core retries a refused connection (see `TargetConnection.connect`). */
  connect?(): Promise<void>;
  /** Tables the source offers when `sqlload.toml` lists none (a TypeScript module's exports). */
  listTables?(): Promise<readonly SourceTableRef[]>;
  describeTable(request: SourceTableRequest): Promise<SourceTableInfo>;
  openTable(request: SourceTableRequest, info: SourceTableInfo): Promise<SourceTableReader>;
  close(): Promise<void>;
}
