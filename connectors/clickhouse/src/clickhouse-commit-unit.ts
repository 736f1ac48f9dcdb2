import {
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type CursorRange,
  columnCursorSpan,
  compareCursor,
  cursorKindOf,
  formatLogicalType,
  formatTargetTable,
  type RecordBatch,
  type RunLogRow,
  SqlloadError,
  type TargetTableRef,
} from "@sqlload/core";
import { layoutFor } from "./clickhouse-layout.js";
import { NativeBlocks, wireStructure } from "./clickhouse-native.js";
import { type CursorSpan, emptySpan } from "./clickhouse-range.js";
import type { ClickHouseSession } from "./clickhouse-session.js";
import type { TableStage, UnitOp } from "./clickhouse-stage.js";
import { wrapClickHouseError } from "./errors.js";

/** Rows are sent in inserts of about this size: large enough for few parts, small enough to keep memory flat. */
export const DEFAULT_FLUSH_BYTES = 32 * 1024 * 1024;
const BLOCKS_MARGIN = 4 * 1024 * 1024;

interface Pending {
  readonly table: string;
  readonly key: string;
  readonly structure: string;
  readonly columns: readonly string[];
  readonly blocks: NativeBlocks;
}

/**
 * One commit unit on ClickHouse. Its rows go to a staging table of its own (for `replace`, to the
 * new table), in inserts of about `flushBytes` of Native blocks (clickhouse-native.ts); a range it
 * deletes is only recorded.
 * `commit` hands both to the table's `TableStage`, where they wait for `publish`; `abort` drops
 * what the unit made, so nothing of it remains.
 */
export class ClickHouseCommitUnit implements CommitUnit {
  private open = true;
  private readonly ops: UnitOp[] = [];
  private readonly runLog: RunLogRow[] = [];
  /** The staging table rows go to now; a delete after writes starts a new one, keeping the order. */
  private current: { table: string; span: CursorSpan } | undefined;
  private build: string | undefined;
  private pending: Pending | undefined;
  /** The insert sent last, not yet awaited. */
  private inFlight: Promise<void> | undefined;
  /**
   * The blocks of the insert in flight, and a buffer free for the next insert's: two buffers taken
   * in turn, so each insert's 32 MB is encoded into memory the process already has rather than
   * fresh pages the kernel must hand over and zero. A buffer is free again only once its insert
   * has ended: over HTTP the request streams from it until then.
   */
  private sent: NativeBlocks | undefined;
  private spare: NativeBlocks | undefined;
  /** Tables this unit created, dropped if it aborts. */
  private readonly made: string[] = [];
  private readonly label: string;
  /** The table's text columns, which a decimal is written into as its text (decimalsAsText). */
  private readonly textColumns: ReadonlySet<string>;

  constructor(
    private readonly session: ClickHouseSession,
    private readonly stage: TableStage,
    private readonly ref: TargetTableRef,
    private readonly options: CommitUnitOptions,
    private readonly flushBytes: number = DEFAULT_FLUSH_BYTES,
  ) {
    this.label = formatTargetTable(ref);
    this.textColumns = new Set(options.columns.filter((c) => c.type.kind === "text").map((c) => c.name));
    stage.noteUnit(options);
  }

  async deleteRange(range: CursorRange, options?: { readonly includeNulls?: boolean }): Promise<void> {
    this.check();
    const cursor = this.options.cursor;
    if (!cursor) throw new SqlloadError("SL900", `deleteRange on ${this.label}, which has no cursor column`);
    if (this.current) {
      await this.guard(() => this.flush(true));
      this.current = undefined;
    }
    this.ops.push({
      op: "delete",
      column: cursor.column,
      kind: cursor.kind,
      range,
      includeNulls: options?.includeNulls ?? false,
    });
  }

  async write(given: RecordBatch): Promise<void> {
    this.check();
    if (given.length === 0) return;
    const batch = decimalsAsText(given, this.textColumns);
    await this.guard(async () => {
      const table = await this.destination(batch);
      if (this.current && this.current.table === table) trackSpan(this.current.span, batch, this.options.cursor?.column);
      // Rows without columns insert nothing (ClickHouse has no empty insert).
      if (batch.schema.length === 0) return;
      const key = schemaKey(batch.schema);
      if (this.pending && (this.pending.key !== key || this.pending.table !== table)) await this.flush();
      this.pending ??= {
        table,
        key,
        structure: wireStructure(batch.schema),
        columns: batch.schema.map((c) => c.name),
        blocks: this.freeBlocks(),
      };
      this.pending.blocks.append(batch);
      if (this.pending.blocks.bytes >= this.flushBytes) await this.flush();
    });
  }

  appendRunLog(row: RunLogRow): Promise<void> {
    this.check();
    this.runLog.push(row);
    return Promise.resolve();
  }

  async commit(): Promise<void> {
    this.check();
    try {
      await this.guard(async () => {
        if (this.options.strategy === "replace" && !this.build && this.options.columns.length > 0) {
          // No rows, but known columns: the table becomes empty.
          await this.createBuild(this.options.columns);
        }
        await this.flush(true);
        const alone = !this.stage.pending;
        await this.stage.commitUnit(this.ops, this.runLog, this.build, this.options);
        if (alone && this.options.strategy === "append" && this.ops.length === 0 && !this.build) {
          // A unit that only appends run-log records (a reconcile record, `logged-state reset`)
          // lands at once: callers outside the runner commit such units without calling publish,
          // and appending records alone cannot be half-visible. Only when nothing else is staged,
          // so it never publishes another unit's rows early.
          await this.stage.publish();
        }
      });
      this.open = false;
      // The stage owns the unit's tables now.
      this.made.length = 0;
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  async abort(): Promise<void> {
    if (!this.open && this.made.length === 0) return;
    this.open = false;
    this.pending = undefined;
    await this.inFlight?.catch(() => undefined);
    this.inFlight = undefined;
    this.sent = undefined;
    this.spare = undefined;
    const made = this.made.splice(0);
    await this.stage.drop(made).catch(() => undefined);
  }

  /** The table the rows go to, created on first use. */
  private async destination(batch: RecordBatch): Promise<string> {
    const columns = this.options.columns.length > 0 ? this.options.columns : batch.schema;
    if (this.options.strategy === "replace") {
      if (!this.build) await this.createBuild(columns);
      return this.build as string;
    }
    if (!this.current) {
      const layout = await this.stage.resolveLayout(this.options, columns);
      const table = this.stage.newName("stage");
      await this.stage.createTable(table, layout);
      this.made.push(table);
      this.current = { table, span: emptySpan() };
      this.ops.push({ op: "rows", table, span: this.current.span });
    }
    return this.current.table;
  }

  private async createBuild(columns: readonly Column[]): Promise<void> {
    const target = await this.stage.describeTarget();
    const name = this.stage.newName("build");
    await this.stage.createTable(name, layoutFor(target, this.options, columns));
    this.made.push(name);
    this.build = name;
  }

  /**
   * Sends the buffered rows. The insert runs while the caller encodes the next rows (ClickHouse
   * parses on its own threads), one insert in flight at a time, so memory stays at two buffers.
   * `wait` also waits for it: before a delete is recorded, and at commit.
   */
  private async flush(wait = false): Promise<void> {
    const pending = this.pending;
    this.pending = undefined;
    await this.inFlight;
    this.inFlight = undefined;
    this.sentIsFree();
    if (pending && pending.blocks.bytes > 0) {
      const insert = this.session.insertNative(
        this.ref.schema,
        pending.table,
        pending.columns,
        pending.structure,
        pending.blocks.take(),
      );
      // Awaited by the next flush; a failure surfaces there (or now, when waiting).
      insert.catch(() => undefined);
      this.inFlight = insert;
      this.sent = pending.blocks;
      // One turn of the event loop, so the insert's statement is under way before the caller
      // encodes the next one: a caller whose batches are already in memory would not yield else.
      await new Promise((started) => setImmediate(started));
    } else if (pending) this.spare ??= pending.blocks;
    if (wait) {
      const last = this.inFlight;
      this.inFlight = undefined;
      await last;
      this.sentIsFree();
    }
  }

  /** The insert in flight has ended: its buffer is free for the next one's blocks. */
  private sentIsFree(): void {
    this.spare ??= this.sent;
    this.sent = undefined;
  }

  /** A buffer for the next insert's blocks: the one free since its insert ended, else a new one. */
  private freeBlocks(): NativeBlocks {
    const free = this.spare;
    this.spare = undefined;
    if (free) {
      free.reset();
      return free;
    }
    // Room for a whole insert and then some: untouched pages cost no memory, and the buffer never
    // grows (a copy) unless one batch is larger than the margin.
    return new NativeBlocks(this.flushBytes + BLOCKS_MARGIN);
  }

  private check(): void {
    if (!this.open) throw new SqlloadError("SL900", `the commit unit of ${this.label} was used after it ended`);
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw wrapClickHouseError(error, `writing ${this.label} failed`, { table: this.label });
    }
  }
}

/** Widens `span` by the cursor values of a batch (code point order for text). */
function trackSpan(span: CursorSpan, batch: RecordBatch, column: string | undefined): void {
  span.rows += batch.length;
  if (!column) return;
  const index = batch.schema.findIndex((c) => c.name === column);
  if (index < 0 || !cursorKindOf((batch.schema[index] as Column).type)) return;
  const { min, max, nulls } = columnCursorSpan(batch, index);
  if (nulls) span.nulls = true;
  if (min && (!span.min || compareCursor(min, span.min) < 0)) span.min = min;
  if (max && (!span.max || compareCursor(span.max, max) < 0)) span.max = max;
}

/**
 * The batch with each decimal column bound for a text column of the table (one made when the
 * source's column was text) relabelled as text: its values are the decimals' exact text, which
 * then lands as it is. Sent as a Decimal, ClickHouse's cast to String drops trailing zeros (1.50
 * became 1.5).
 */
function decimalsAsText(batch: RecordBatch, text: ReadonlySet<string>): RecordBatch {
  if (!batch.schema.some((c) => c.type.kind === "decimal" && text.has(c.name))) return batch;
  return {
    ...batch,
    schema: batch.schema.map((c) =>
      c.type.kind === "decimal" && text.has(c.name) ? { ...c, type: { kind: "text" } as const } : c,
    ),
  };
}

/** A short description of a batch's schema, to tell buffered batches of different shapes apart. */
export function schemaKey(schema: readonly Column[]): string {
  return schema.map((c) => `${c.name}\u0000${formatLogicalType(c.type)}`).join("\u0001");
}
