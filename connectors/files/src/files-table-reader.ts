import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import {
  cursorFromDuckDB,
  duckdbRange,
  duckdbTypeSql,
  estimateBytes,
  isCanonical,
  logicalTypeOf,
  quoteIdent,
  type SqlCondition,
  streamBatches,
  wrapDuckDBError,
} from "@sqlload/connector-duckdb/engine";
import {
  CommitPoints,
  type CursorRange,
  type CursorValue,
  compareCursor,
  type FileScan,
  type FileScanRequest,
  inCursorRange,
  maxCursor,
  overlapsCursorRange,
  type ReadRequest,
  type RecordBatch,
  type SourceItem,
  type SourceTableReader,
  SqlloadError,
  spanInCursorRange,
} from "@sqlload/core";
import { ENGINE_SETTINGS, fileListParameter } from "./files-engine.js";
import { partitionCursor } from "./files-hive.js";
import { type ColumnStats, columnStats } from "./files-parquet.js";
import { type ResolvedTable, readCall, type SourceFile, type TableColumn } from "./files-source-table.js";

/** SPEC §6: a files source commits at 1,000 files or about 1 GB, whichever comes first. */
export const FILES_PER_COMMIT = 1000;

interface Group {
  readonly segments: Segment[];
  files: number;
}

/**
 * Packs segments in order into groups of at most FILES_PER_COMMIT files (a larger segment alone);
 * a NULL-only segment is a group of its own, as it reads with another condition.
 */
function packGroups(segments: readonly Segment[]): Group[] {
  const groups: Group[] = [];
  let current: Group | undefined;
  for (const segment of segments) {
    const fits =
      current &&
      !segment.nullsOnly &&
      !current.segments[0]?.nullsOnly &&
      current.files + segment.files.length <= FILES_PER_COMMIT;
    if (!current || !fits) {
      current = { segments: [], files: 0 };
      groups.push(current);
    }
    current.segments.push(segment);
    current.files += segment.files.length;
  }
  return groups;
}

/** Files read together, in cursor order relative to the other segments: a commit never falls inside a partition. */
interface Segment {
  readonly files: readonly SourceFile[];
  /** Only the NULL-cursor rows of these files. */
  readonly nullsOnly?: boolean;
  /** Read its NULL-cursor rows too (when no segment of their own holds them). */
  readonly includeNulls: boolean;
}

export class FilesTableReader implements SourceTableReader {
  private stats: Promise<Map<string, ColumnStats>> | undefined;
  private readonly partitionValues = new Map<SourceFile, CursorValue | null>();

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly table: ResolvedTable,
    private readonly release: () => void,
  ) {
    const cursor = table.cursor;
    if (cursor?.partition) {
      for (const file of table.files) {
        const text = file.partitions.get(cursor.column.name);
        if (text === undefined || text === null) {
          this.partitionValues.set(file, null);
          continue;
        }
        const value = partitionCursor(cursor.kind, text);
        if (!value) {
          throw new SqlloadError(
            "SL304",
            `table ${table.label}: partition folder ${cursor.column.name}=${text} of ${file.path} is not a ${cursor.kind}`,
            {
              table: table.label,
              hint: "Rename the folder, or narrow the table's `glob` to leave it out.",
            },
          );
        }
        this.partitionValues.set(file, value);
      }
    }
  }

  async *read(request: ReadRequest): AsyncIterable<SourceItem> {
    try {
      const files = await this.prune(request.range, request.includeNulls);
      if (files.length === 0) return;
      if (!request.ordered || !this.table.cursor) {
        const all = files.length === this.table.files.length;
        for await (const batch of this.query(files, request.range, request.includeNulls, false, request.signal, all))
          yield { kind: "batch", batch };
        return;
      }
      yield* this.readOrdered(files, request);
    } catch (error) {
      if (request.signal.aborted) throw error;
      throw wrapDuckDBError(error, "source", `reading ${this.table.label} failed`, this.table.label);
    }
  }

  /**
   * An ordered read. Segments (a partition, or Parquet files whose cursor ranges overlap) are
   * packed into groups of at most FILES_PER_COMMIT files, each group one query ordered by the
   * cursor. Core's `CommitPoints` puts a `commit-point` between rows whose cursor values differ,
   * so a partition (one value) is never split; the runner commits at one once about 1 GB moved
   * since its last commit. A group that stopped short of the next segment ends with a forced
   * point: a commit at 1,000 files, whichever comes first.
   */
  private async *readOrdered(files: readonly SourceFile[], request: ReadRequest): AsyncGenerator<SourceItem> {
    const cursorIndex = this.table.columns.indexOf(this.table.cursor!.column);
    const groups = packGroups(await this.segments(files, request));
    const points = new CommitPoints(cursorIndex);
    for (const [g, group] of groups.entries()) {
      const groupFiles = group.segments.flatMap((s) => s.files);
      const first = group.segments[0] as Segment;
      const all = groupFiles.length === this.table.files.length;
      const rows = this.query(groupFiles, request.range, first.includeNulls, true, request.signal, all, first.nullsOnly);
      for await (const batch of rows) yield* points.batch(batch, estimateBytes(batch));
      const full =
        g + 1 < groups.length && group.files + ((groups[g + 1] as Group).segments[0] as Segment).files.length > FILES_PER_COMMIT;
      yield* points.point({ required: full });
    }
  }

  /**
   * The native path (core's `FileScan`): the statements `read` would stream, one per group of an
   * ordered read and one for an unordered read, for the target to run itself. No ORDER BY: order
   * only places the row path's commit points, which here fall between scans.
   */
  async fileScans(request: FileScanRequest): Promise<readonly FileScan[]> {
    const format = this.table.options.format;
    if (format !== "parquet" && format !== "csv") {
      throw new SqlloadError("SL900", `table ${this.table.label}: ${format} files are not offered as file scans`);
    }
    const scan = (files: readonly SourceFile[], includeNulls: boolean, nullsOnly: boolean, commitAfter: boolean): FileScan => {
      const all = files.length === this.table.files.length;
      const statement = this.statement(files, request.range, includeNulls, false, all, nullsOnly);
      const bytes = files.reduce((sum, file) => sum + file.size, 0);
      return { engine: "duckdb", format, ...statement, settings: ENGINE_SETTINGS, files: files.length, bytes, commitAfter };
    };
    try {
      const files = await this.prune(request.range, request.includeNulls);
      if (files.length === 0) return [];
      if (!request.ordered || !this.table.cursor) return [scan(files, request.includeNulls, false, false)];
      const groups = packGroups(await this.segments(files, request));
      return groups.map((group, g) => {
        const first = group.segments[0] as Segment;
        const full =
          g + 1 < groups.length &&
          group.files + ((groups[g + 1] as Group).segments[0] as Segment).files.length > FILES_PER_COMMIT;
        return scan(
          group.segments.flatMap((s) => s.files),
          first.includeNulls,
          first.nullsOnly === true,
          full,
        );
      });
    } catch (error) {
      throw wrapDuckDBError(error, "source", `reading ${this.table.label} failed`, this.table.label);
    }
  }

  /** The segments of an ordered read, in cursor order (NULLs first). */
  private async segments(files: readonly SourceFile[], request: Pick<ReadRequest, "range" | "includeNulls">): Promise<Segment[]> {
    const cursor = this.table.cursor!;
    const { includeNulls } = request;
    if (cursor.partition) {
      // One segment per partition value, NULL first: a partition is never split.
      const groups = new Map<string, { value: CursorValue | null; files: SourceFile[] }>();
      for (const file of files) {
        const value = this.partitionValues.get(file) ?? null;
        const key = value === null ? "\u0000null" : `${value.value}`;
        let group = groups.get(key);
        if (!group) groups.set(key, (group = { value, files: [] }));
        group.files.push(file);
      }
      return [...groups.values()]
        .sort((a, b) => (a.value === null ? -1 : b.value === null ? 1 : compareCursor(a.value, b.value)))
        .map((g) => ({ files: g.files, includeNulls }));
    }
    const stats = this.table.options.format === "parquet" ? await this.fileStats() : undefined;
    const known = stats ? files.map((file) => ({ file, stats: this.statsOf(stats, file) })) : [];
    if (!stats || known.some((k) => !k.stats.exact)) {
      // Without statistics nothing tells where a file's values lie: one sorted read of them all.
      return [{ files, includeNulls }];
    }
    const segments: Segment[] = [];
    if (includeNulls) {
      // NULLs first, in a segment of their own: an incremental run never reads them again.
      const withNulls = known.filter((k) => k.stats.nulls > 0).map((k) => k.file);
      if (withNulls.length > 0) segments.push({ files: withNulls, nullsOnly: true, includeNulls: true });
    }
    // Files whose value ranges overlap (or touch) read together; separate ones in order.
    const valued = known
      .filter((k) => k.stats.min !== null && k.stats.max !== null && overlapsCursorRange(k.stats.min, k.stats.max, request.range))
      .sort((a, b) => compareCursor(a.stats.min!, b.stats.min!));
    let current: SourceFile[] = [];
    let currentMax: CursorValue | null = null;
    for (const { file, stats: s } of valued) {
      if (currentMax && compareCursor(s.min!, currentMax) > 0) {
        segments.push({ files: current, includeNulls: false });
        current = [];
        currentMax = null;
      }
      current.push(file);
      currentMax = maxCursor(currentMax, s.max);
    }
    if (current.length > 0) segments.push({ files: current, includeNulls: false });
    return segments;
  }

  /** The files that may hold rows of the range: by partition folder, or by Parquet statistics. */
  private async prune(range: CursorRange, includeNulls: boolean): Promise<SourceFile[]> {
    const cursor = this.table.cursor;
    const files = this.table.files;
    if (!cursor || (!range.from && !range.to && includeNulls)) return [...files];
    if (cursor.partition) {
      return files.filter((file) => {
        const value = this.partitionValues.get(file) ?? null;
        return value === null ? includeNulls : inCursorRange(value, range);
      });
    }
    if (this.table.options.format !== "parquet") return [...files];
    const stats = await this.fileStats();
    return files.filter((file) => {
      const s = this.statsOf(stats, file);
      if (!s.exact) return true;
      if (includeNulls && s.nulls > 0) return true;
      return s.min !== null && s.max !== null && overlapsCursorRange(s.min, s.max, range);
    });
  }

  private fileStats(): Promise<Map<string, ColumnStats>> {
    const cursor = this.table.cursor!;
    this.stats ??= columnStats(
      this.connection,
      this.table.files.map((f) => f.enginePath),
      cursor.column.name,
      cursor.kind,
      duckdbTypeSql(cursor.column.type),
    );
    return this.stats;
  }

  private statsOf(stats: Map<string, ColumnStats>, file: SourceFile): ColumnStats {
    // A file without the column holds only NULLs in it (a column added later).
    return stats.get(file.enginePath) ?? { min: null, max: null, nulls: 1, exact: true };
  }

  /**
   * Streams the rows of `files` in the range. Each column is read as the table's type (a column
   * narrower in these files is cast up, one they lack is NULL), since a subset of the files may
   * unify to other types than all of them.
   */
  private async *query(
    files: readonly SourceFile[],
    range: CursorRange,
    includeNulls: boolean,
    ordered: boolean,
    signal: AbortSignal,
    allFiles: boolean,
    nullsOnly = false,
  ): AsyncGenerator<RecordBatch> {
    const { sql, values, types } = this.statement(files, range, includeNulls, ordered, allFiles, nullsOnly);
    const schema = this.table.columns.map((c) => ({ name: c.name, type: c.type, nullable: true }));
    yield* streamBatches(this.connection, sql, schema, values, types, signal);
  }

  /** The SELECT of `query`: every column in the table's type, the rows of the range, bound parameters apart. */
  private statement(
    files: readonly SourceFile[],
    range: CursorRange,
    includeNulls: boolean,
    ordered: boolean,
    allFiles: boolean,
    nullsOnly: boolean,
  ): { sql: string; values: Record<string, DuckDBValue>; types: Record<string, DuckDBType | undefined> } {
    const table = this.table;
    const from = this.from(allFiles);
    const expressions = new Map(table.columns.map((c) => [c.name, from.expression(c)]));
    const select = table.columns.map((c) => `${expressions.get(c.name)} AS ${quoteIdent(c.name)}`).join(", ");
    const list = fileListParameter(files.map((f) => f.enginePath));
    let sql = `SELECT ${select} FROM ${from.sql}`;
    let values: Record<string, DuckDBValue> = { files: list.value };
    let types: Record<string, DuckDBType | undefined> = { files: list.type };
    const cursor = table.cursor;
    if (cursor) {
      const expression = expressions.get(cursor.column.name) as string;
      if (nullsOnly) sql += ` WHERE ${expression} IS NULL`;
      else {
        const condition = this.range(expression, range, includeNulls);
        sql += ` WHERE ${condition.sql}`;
        values = { ...values, ...condition.values };
        types = { ...types, ...condition.types };
      }
      if (ordered) sql += ` ORDER BY ${expression} ASC NULLS FIRST`;
    }
    return { sql, values, types };
  }

  /**
   * The FROM clause reading the files bound as `$files`, and how to read each column from it as
   * the table's type. Read together, all the table's files give the described types. A subset
   * may lack a column or unify to a narrower type: a zero-row select of every column in the
   * table's type, joined BY NAME, makes each column exist with at least that type, without
   * describing (for CSV: sniffing) the subset first.
   */
  private from(allFiles: boolean): { sql: string; expression: (column: TableColumn) => string } {
    const call = readCall(this.table.options, this.table.hive);
    if (allFiles) return { sql: call, expression: (c) => expressionFor(c, c.duckType) };
    const carrier = this.table.columns.map((c) => `CAST(NULL AS ${duckdbTypeSql(c.type)}) AS ${quoteIdent(c.name)}`).join(", ");
    return {
      sql: `(SELECT ${carrier} WHERE false UNION ALL BY NAME SELECT * FROM ${call}) AS files`,
      expression: (c) => `CAST(${quoteIdent(c.name)} AS ${duckdbTypeSql(c.type)})`,
    };
  }

  async maxCursor(): Promise<CursorValue | null> {
    const cursor = this.table.cursor;
    if (!cursor) return null;
    try {
      if (cursor.partition) {
        let best: CursorValue | null = null;
        for (const value of this.partitionValues.values()) best = maxCursor(best, value);
        return best;
      }
      if (this.table.options.format !== "parquet") return this.aggregate("max", this.table.files, {});
      // The footers' statistics answer for every file that has them; the others are scanned.
      const stats = await this.fileStats();
      let best: CursorValue | null = null;
      const unknown: SourceFile[] = [];
      for (const file of this.table.files) {
        const s = this.statsOf(stats, file);
        if (s.exact) best = maxCursor(best, s.max);
        else unknown.push(file);
      }
      return maxCursor(best, await this.aggregate("max", unknown, {}));
    } catch (error) {
      throw wrapDuckDBError(error, "source", `reading the maximum cursor of ${this.table.label} failed`, this.table.label);
    }
  }

  async firstCursorAtOrAfter(value: CursorValue): Promise<CursorValue | null> {
    const cursor = this.table.cursor;
    if (!cursor) return null;
    const range: CursorRange = { from: value };
    try {
      if (cursor.partition) {
        let best: CursorValue | null = null;
        for (const v of this.partitionValues.values()) {
          if (v && inCursorRange(v, range) && (!best || compareCursor(v, best) < 0)) best = v;
        }
        return best;
      }
      if (this.table.options.format !== "parquet") return this.aggregate("min", this.table.files, range);
      // A file whose values all lie at or after `value` answers with its minimum; one that
      // straddles it, or has no statistics, is scanned, and only below the best answer so far.
      const stats = await this.fileStats();
      let best: CursorValue | null = null;
      const scan: SourceFile[] = [];
      for (const file of this.table.files) {
        const s = this.statsOf(stats, file);
        if (!s.exact) scan.push(file);
        else if (s.min && s.max && overlapsCursorRange(s.min, s.max, range)) {
          if (spanInCursorRange(s.min, s.max, range)) best = best && compareCursor(best, s.min) <= 0 ? best : s.min;
          else scan.push(file);
        }
      }
      if (scan.length === 0) return best;
      const found = await this.aggregate("min", scan, best ? { from: value, to: best } : range);
      return found ?? best;
    } catch (error) {
      throw wrapDuckDBError(error, "source", `reading the first cursor of ${this.table.label} failed`, this.table.label);
    }
  }

  private async aggregate(fn: "min" | "max", files: readonly SourceFile[], range: CursorRange): Promise<CursorValue | null> {
    const cursor = this.table.cursor!;
    if (files.length === 0) return null;
    const from = this.from(files.length === this.table.files.length);
    const expression = from.expression(cursor.column);
    const condition = this.range(expression, range, false);
    const list = fileListParameter(files.map((f) => f.enginePath));
    const reader = await this.connection.runAndReadAll(
      `SELECT ${fn}(${expression}) FROM ${from.sql} WHERE ${condition.sql}`,
      { files: list.value, ...condition.values },
      { files: list.type, ...condition.types },
    );
    const result = reader.getRows()[0]?.[0];
    if (result === null || result === undefined) return null;
    return cursorFromDuckDB(cursor.kind, reader.columnTypes()[0] as DuckDBType, result) ?? null;
  }

  /** The cursor, read as `expression` (the table's type across files), in a range. */
  private range(expression: string, range: CursorRange, includeNulls: boolean): SqlCondition {
    const { column, kind } = this.table.cursor!;
    const withZone = column.type.kind === "timestamptz";
    return duckdbRange({ column: column.name, kind, range, includeNulls, expression, withZone });
  }

  async close(): Promise<void> {
    this.release();
  }
}

/** Reads a column as the table's type, from files where DuckDB reads it as `present`. */
function expressionFor(column: TableColumn, present: DuckDBType): string {
  const target = duckdbTypeSql(column.type);
  const quoted = quoteIdent(column.name);
  return isCanonical(present) && duckdbTypeSql(logicalTypeOf(present)) === target ? quoted : `CAST(${quoted} AS ${target})`;
}
