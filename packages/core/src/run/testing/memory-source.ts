import { defaultSourceCapabilities, type SourceCapabilities } from "../../connector/capabilities.js";
import type { Column } from "../../connector/logical-types.js";
import { batchFromRows, cursorAt } from "../../connector/record-batch.js";
import type {
  ReadRequest,
  SourceConnection,
  SourceItem,
  SourceTableInfo,
  SourceTableReader,
  SourceTableRequest,
} from "../../connector/source.js";
import { type CursorValue, compareCursor } from "../../cursor/cursor-value.js";
import { CommitPoints } from "../commit-points.js";
import { inCursorRange } from "../range-filter.js";

type Row = Record<string, unknown>;

export interface MemorySourceOptions {
  readonly columns: readonly Column[];
  readonly rows: readonly Row[];
  readonly cursorColumn?: string;
  readonly capabilities?: Partial<SourceCapabilities>;
  /** Rows per batch. Default 2. */
  readonly batchRows?: number;
  /** Ignore the requested range and yield every row (as a careless table function would). */
  readonly ignoreRange?: boolean;
  readonly loggedState?: boolean;
  /** Reported as `SourceTableInfo.fullReadBytes` (bytes count as rows here); unordered batches then carry their bytes. */
  readonly fullReadBytes?: number;
  /** Yields these items instead of the rows (checkpoints, failures, slow reads). */
  readonly script?: (request: ReadRequest) => AsyncIterable<SourceItem>;
}

/**
 * A source held in memory, for the runner's tests: yields its rows in batches, in cursor order
 * with a commit point between distinct cursor values when asked for an ordered read, and
 * answers `firstCursorAtOrAfter` when its capabilities say so. Records every read request.
 */
export class MemorySource implements SourceConnection {
  readonly capabilities: SourceCapabilities;
  readonly reads: ReadRequest[] = [];
  readonly lookups: CursorValue[] = [];
  /** Readers opened, and how many of them were closed. */
  opened = 0;
  closed = 0;

  constructor(private readonly options: MemorySourceOptions) {
    this.capabilities = { ...defaultSourceCapabilities, ...options.capabilities };
  }

  request(): SourceTableRequest {
    return { table: { name: "t", key: "t" }, cursorColumn: this.options.cursorColumn, options: {} };
  }

  async describeTable(): Promise<SourceTableInfo> {
    const cursor = this.options.columns.find((c) => c.name === this.options.cursorColumn);
    return {
      columns: this.options.columns,
      cursorKind: cursor ? "integer" : undefined,
      cursorNullable: true,
      cursorIndexed: this.capabilities.orderedReads,
      loggedState: this.options.loggedState,
      fullReadBytes: this.options.fullReadBytes,
    };
  }

  async openTable(): Promise<SourceTableReader> {
    this.opened++;
    const reader: SourceTableReader = {
      read: (request) => {
        this.reads.push(request);
        return this.options.script ? this.options.script(request) : this.rowsFor(request);
      },
      close: async () => {
        this.closed++;
      },
    };
    if (this.capabilities.firstCursorLookup) {
      reader.firstCursorAtOrAfter = async (value) => {
        this.lookups.push(value);
        const after = this.cursors().filter((c) => compareCursor(c, value) >= 0);
        return after.sort(compareCursor)[0] ?? null;
      };
    }
    return reader;
  }

  async close(): Promise<void> {}

  private cursors(): CursorValue[] {
    const batch = batchFromRows(this.options.columns, this.options.rows);
    const index = this.cursorIndex();
    const out: CursorValue[] = [];
    for (let r = 0; r < batch.length; r++) {
      const value = cursorAt(batch, index, r);
      if (value) out.push(value);
    }
    return out;
  }

  private cursorIndex(): number {
    return this.options.columns.findIndex((c) => c.name === this.options.cursorColumn);
  }

  private async *rowsFor(request: ReadRequest): AsyncGenerator<SourceItem> {
    const { columns } = this.options;
    const all = batchFromRows(columns, this.options.rows);
    const index = this.cursorIndex();
    let picked = this.options.rows.map((row, r) => ({ row, cursor: index >= 0 ? cursorAt(all, index, r) : null }));
    if (index >= 0 && !this.options.ignoreRange) {
      picked = picked.filter(({ cursor }) => (cursor === null ? request.includeNulls : inCursorRange(cursor, request.range)));
    }
    if (request.ordered) {
      picked.sort((a, b) => (a.cursor === null ? -1 : b.cursor === null ? 1 : compareCursor(a.cursor, b.cursor)));
    }
    const size = this.options.batchRows ?? 2;
    // Bytes are counted as rows, so a test's chunk size reads as a row count.
    const points = request.ordered && index >= 0 ? new CommitPoints(index) : undefined;
    for (let i = 0; i < picked.length; i += size) {
      const slice = picked.slice(i, i + size);
      const batch = batchFromRows(
        columns,
        slice.map((p) => p.row),
      );
      if (points) yield* points.batch(batch, slice.length);
      else
        yield this.options.fullReadBytes === undefined ? { kind: "batch", batch } : { kind: "batch", batch, bytes: slice.length };
    }
  }
}
