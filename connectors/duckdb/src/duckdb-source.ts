import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import {
  type Column,
  CommitPoints,
  type CursorKind,
  type CursorRange,
  type CursorValue,
  cursorKindOf,
  defaultSourceCapabilities,
  type ReadRequest,
  type SourceCapabilities,
  type SourceConnection,
  type SourceItem,
  type SourceTableInfo,
  type SourceTableReader,
  type SourceTableRequest,
  SqlloadError,
} from "@sqlload/core";
import { estimateBytes, streamBatches } from "./duckdb-batches.js";
import { columnCollations, describeRelation, type RelationColumn } from "./duckdb-catalog.js";
import { DuckDBTypeId } from "./duckdb-client.js";
import type { DuckDBDatabase } from "./duckdb-database.js";
import { findColumn, logicalTypeOf, qualifiedName, quoteIdent, readExpression } from "./duckdb-dialect.js";
import { duckdbRange, type SqlCondition } from "./duckdb-range.js";
import { memoryForRead, type ReadShape, readShape } from "./duckdb-read-memory.js";
import { type PagePlan, pagePlan, rowTextBytesSql, samplePlan } from "./duckdb-read-pages.js";
import { cursorFromDuckDB } from "./duckdb-values.js";
import { sourceMemoryHint, wrapDuckDBError } from "./errors.js";

/** A DuckDB file as a source. Each opened table reads in one transaction, so all its windows see one snapshot. */
export class DuckDBSource implements SourceConnection {
  readonly capabilities: SourceCapabilities = {
    ...defaultSourceCapabilities,
    exactRange: true,
    orderedReads: true,
    snapshot: true,
    firstCursorLookup: true,
  };

  private constructor(
    private readonly db: DuckDBDatabase,
    private readonly connection: DuckDBConnection,
  ) {}

  static async open(db: DuckDBDatabase): Promise<DuckDBSource> {
    return new DuckDBSource(db, await db.connect());
  }

  async describeTable(request: SourceTableRequest): Promise<SourceTableInfo> {
    const table = await resolveTable(this.connection, request, this.db.path);
    const { schema = "main", name } = request.table;
    return {
      columns: table.columns.map((c) => ({ name: c.name, type: logicalTypeOf(c.type), nullable: c.nullable })),
      cursorKind: table.cursor?.kind,
      cursorNullable: table.cursor?.column.nullable,
      collations: table.cursor ? await columnCollations(this.connection, schema, name, [table.cursor.column]) : {},
    };
  }

  async openTable(request: SourceTableRequest, _info: SourceTableInfo): Promise<SourceTableReader> {
    const connection = await this.db.connect();
    try {
      await connection.run("BEGIN TRANSACTION");
      const table = await resolveTable(connection, request, this.db.path);
      const plan = await planRead(this.db, table);
      return new DuckDBTableReader(this.db, connection, request.table.key, table, plan);
    } catch (error) {
      this.db.disconnect(connection);
      throw wrapDuckDBError(error, "source", `cannot open ${request.table.key} in ${this.db.path}`, request.table.key);
    }
  }

  async close(): Promise<void> {
    await this.db.release();
  }
}

interface ResolvedTable {
  readonly from: string;
  readonly columns: readonly RelationColumn[];
  readonly cursor?: { readonly column: RelationColumn; readonly kind: CursorKind } | undefined;
  /** False when a column is named `rowid`, which hides DuckDB's own: then its reads are not paged. */
  readonly rowid: boolean;
}

/**
 * The columns a request reads (all, or those asked for, in that order, plus the cursor column
 * when the list leaves it out: ranges, order and the target's maximum all need it).
 */
async function resolveTable(connection: DuckDBConnection, request: SourceTableRequest, path: string): Promise<ResolvedTable> {
  const { table } = request;
  const schema = table.schema ?? "main";
  const all = await describeRelation(connection, schema, table.name);
  if (!all) throw new SqlloadError("SL206", `table ${table.key} not found in the DuckDB file ${path}`, { table: table.key });
  const pick = (name: string, code: "SL200" | "SL209") => {
    const column = findColumn(all, name);
    if (!column) throw new SqlloadError(code, `column "${name}" not found in ${table.key}`, { table: table.key });
    return column;
  };
  const columns = request.columns ? request.columns.map((name) => pick(name, "SL209")) : [...all];
  let cursor: ResolvedTable["cursor"];
  if (request.cursorColumn) {
    const column = pick(request.cursorColumn, "SL200");
    const kind = cursorKindOf(logicalTypeOf(column.type));
    if (!kind) {
      throw new SqlloadError("SL201", `cursor column "${column.name}" of ${table.key} has type ${column.type.toString()}`, {
        table: table.key,
      });
    }
    if (!columns.includes(column)) columns.push(column);
    cursor = { column, kind };
  }
  const rowid = !all.some((c) => c.name.toLowerCase() === "rowid");
  return { from: qualifiedName(schema, table.name), columns, cursor, rowid };
}

/** How a table's reads go: the memory_limit they hold (released when the reader closes), and their pages, if any. */
interface ReadPlan {
  readonly release?: (() => void) | undefined;
  /** Rows of a rowid range (duckdb-read-pages.ts); undefined when a read is one streamed query. */
  readonly pageRows?: number | undefined;
}

/**
 * Plans the reads of `table` from the statistics DuckDB keeps of each column (read with one row,
 * the one whose rowid is 0 where it is still there, which pins a block of every column, on a
 * connection of their own, so that a failure leaves the reader's transaction as it was), and raises the file's memory_limit for them
 * (duckdb-read-memory.ts): first for a scan of its columns, then (never lower: see RaisableLimit)
 * for its rows; to DuckDB's own limit when they cannot be read (a view, an empty table). A
 * table of long text is sampled, and read in pages sized by the sample (duckdb-read-pages.ts).
 */
async function planRead(db: DuckDBDatabase, table: ResolvedTable): Promise<ReadPlan> {
  const memory = db.readMemory;
  const connection = await db.connect();
  try {
    const threads = (await connection.runAndReadAll("SELECT current_setting('threads')::INTEGER")).getRows()[0]?.[0];
    if (typeof threads !== "number") return { release: await memory?.hold(undefined) };
    const types = table.columns.map((c) => c.type);
    const scan = await memory?.hold(memoryForRead(readShape(types), threads));
    let stats: (string | null)[] | undefined;
    try {
      const columns = table.columns.map((c) => `stats(${quoteIdent(c.name)})`).join(", ");
      const statsAt = async (rowid: string) =>
        (await connection.runAndReadAll(`SELECT ${columns} FROM ${table.from} WHERE rowid = ${rowid}`)).getRows()[0];
      // Row 0, found at once; where it was deleted, the first row left (a scan of the rowids: 16 ms for 3M rows).
      const row = (await statsAt("0")) ?? (await statsAt(`(SELECT min(rowid) FROM ${table.from})`));
      stats = row?.map((value) => (typeof value === "string" ? value : null));
    } catch {
      // Not a table, or no such row: the limit DuckDB would have.
    }
    // The rows' need counts the scan's columns again: released first, the scan's is not counted twice.
    scan?.();
    const shape = stats ? readShape(types, stats) : undefined;
    const paged = shape && table.rowid ? await planPages(connection, db, table, shape, threads) : undefined;
    if (paged) return paged;
    return { release: await memory?.hold(shape ? memoryForRead(shape, threads) : undefined) };
  } finally {
    db.disconnect(connection);
  }
}

/**
 * Pages for a table of long text, from a sample of its rows spread over its rowids (the rows the
 * filter picks are the only ones DuckDB reads whole); undefined when it is not such a table or
 * the sample fails.
 */
async function planPages(
  connection: DuckDBConnection,
  db: DuckDBDatabase,
  table: ResolvedTable,
  shape: ReadShape,
  threads: number,
): Promise<ReadPlan | undefined> {
  const sample = samplePlan(shape, threads);
  const bytes = rowTextBytesSql(table.columns);
  if (!sample || !bytes) return undefined;
  let plan: PagePlan | undefined;
  const sampling = await db.readMemory?.hold(sample.need);
  try {
    const last = (await connection.runAndReadAll(`SELECT max(rowid) FROM ${table.from}`)).getRows()[0]?.[0];
    const step = typeof last === "bigint" ? last / BigInt(sample.rows) + 1n : 1n;
    const [count, sum] = (
      await connection.runAndReadAll(`SELECT count(*), sum(${bytes}) FROM ${table.from} WHERE rowid % ${step} = 0`)
    ).getRows()[0] as [bigint, unknown];
    plan = pagePlan(shape, threads, count > 0n ? Number(sum) / Number(count) : undefined);
  } catch {
    // Read as one query, under DuckDB's own limit, as before pages.
    return undefined;
  } finally {
    // Before the pages' need is held: the two are never counted together.
    sampling?.();
  }
  return plan && { release: await db.readMemory?.hold(plan.need), pageRows: plan.rows };
}

class DuckDBTableReader implements SourceTableReader {
  private readonly schema: readonly Column[];
  /** Set once a read in cursor order has raised the limit to DuckDB's own: its sort needs it. */
  private ordered: (() => void) | undefined;

  constructor(
    private readonly db: DuckDBDatabase,
    private readonly connection: DuckDBConnection,
    private readonly key: string,
    private readonly table: ResolvedTable,
    private readonly plan: ReadPlan,
  ) {
    this.schema = table.columns.map((c) => ({ name: c.name, type: logicalTypeOf(c.type), nullable: c.nullable }));
  }

  async *read(request: ReadRequest): AsyncIterable<SourceItem> {
    const { cursor } = this.table;
    const select = this.table.columns.map((c) => `${readExpression(c.name, c.type)} AS ${quoteIdent(c.name)}`).join(", ");
    let where: string | undefined;
    let order = "";
    let values: Record<string, DuckDBValue> = {};
    let types: Record<string, DuckDBType | undefined> = {};
    if (cursor) {
      const condition = this.range(request.range, request.includeNulls);
      where = condition.sql;
      if (request.ordered) {
        order = ` ORDER BY ${readExpression(cursor.column.name, cursor.column.type)} ASC NULLS FIRST`;
        this.ordered ??= await this.db.readMemory?.hold(undefined);
      }
      values = condition.values;
      types = condition.types;
    }
    const cursorIndex = cursor ? this.table.columns.indexOf(cursor.column) : -1;
    const points = request.ordered && cursorIndex >= 0 ? new CommitPoints(cursorIndex) : undefined;
    try {
      for await (const sql of this.queries(`SELECT ${select} FROM ${this.table.from}`, where, order, values, types)) {
        // Inside the transaction openTable began, which gives every window (and page) one snapshot.
        const batches = streamBatches(this.connection, sql, this.schema, values, types, request.signal, { inTransaction: true });
        for await (const batch of batches) {
          if (points) yield* points.batch(batch, estimateBytes(batch));
          else yield { kind: "batch", batch };
        }
      }
    } catch (error) {
      if (request.signal.aborted) throw error;
      throw wrapDuckDBError(error, "source", `reading ${this.key} failed`, this.key, sourceMemoryHint(error));
    }
  }

  /**
   * The queries of a read: one, or for a table read in pages (unless in cursor order, which
   * sorts the whole range), one per page of the rows the read's range holds.
   */
  private async *queries(
    select: string,
    where: string | undefined,
    order: string,
    values: Record<string, DuckDBValue>,
    types: Record<string, DuckDBType | undefined>,
  ): AsyncIterable<string> {
    const rows = this.plan.pageRows;
    const filter = where === undefined ? "" : ` WHERE ${where}`;
    if (rows === undefined || order !== "") {
      yield `${select}${filter}${order}`;
      return;
    }
    const bounds = await this.pageBounds(filter, values, types, rows);
    const and = where === undefined ? "" : `(${where}) AND `;
    for (let i = 0; i + 1 < bounds.length; i++) {
      yield `${select} WHERE ${and}rowid >= ${bounds[i]} AND rowid < ${bounds[i + 1]}`;
    }
  }

  /**
   * Where the pages of a read begin, in rowids, and one past its last row: the range's first row
   * and every `rows`-th after it, read with the cursor column alone, so that a page holds `rows` of
   * its rows however they lie (the newest rows of a large table, or a window of a cursor that does
   * not follow the rows' order: pages over its lowest to highest rowid took a query per page of the
   * whole table, each window). The range's first and last rows bound them, so every row it holds
   * is in one page whatever order the numbering took; a range of one page needs no numbering.
   */
  private async pageBounds(
    filter: string,
    values: Record<string, DuckDBValue>,
    types: Record<string, DuckDBType | undefined>,
    rows: number,
  ): Promise<bigint[]> {
    const { from } = this.table;
    const ends = await this.connection.runAndReadAll(
      `SELECT min(rowid), max(rowid), count(*) FROM ${from}${filter}`,
      values,
      types,
    );
    const [first, last, count] = ends.getRows()[0] ?? [];
    if (typeof first !== "bigint" || typeof last !== "bigint") return [];
    const bounds = new Set([first, last + 1n]);
    if (typeof count === "bigint" && count <= BigInt(rows)) return [...bounds];
    const every = await this.connection.runAndReadAll(
      `SELECT rowid FROM (SELECT rowid, row_number() OVER () AS n FROM ${from}${filter}) WHERE n > 1 AND (n - 1) % ${rows} = 0`,
      values,
      types,
    );
    for (const [rowid] of every.getRows()) if (typeof rowid === "bigint" && rowid > first && rowid <= last) bounds.add(rowid);
    return [...bounds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** The cursor column (as read, cast to its canonical type) in a range. */
  private range(range: CursorRange, includeNulls: boolean): SqlCondition {
    const { column, kind } = this.table.cursor!;
    return duckdbRange({
      column: column.name,
      kind,
      range,
      includeNulls,
      expression: readExpression(column.name, column.type),
      withZone: column.type.typeId === DuckDBTypeId.TIMESTAMP_TZ,
    });
  }

  async maxCursor(): Promise<CursorValue | null> {
    return this.aggregate("max", undefined);
  }

  async firstCursorAtOrAfter(value: CursorValue): Promise<CursorValue | null> {
    return this.aggregate("min", value);
  }

  private async aggregate(fn: "min" | "max", from: CursorValue | undefined): Promise<CursorValue | null> {
    const { cursor } = this.table;
    if (!cursor) return null;
    try {
      const expression = readExpression(cursor.column.name, cursor.column.type);
      const condition = this.range({ from }, false);
      const reader = await this.connection.runAndReadAll(
        `SELECT ${fn}(${expression}) FROM ${this.table.from} WHERE ${condition.sql}`,
        condition.values,
        condition.types,
      );
      const value = reader.getRows()[0]?.[0];
      if (value === null || value === undefined) return null;
      return cursorFromDuckDB(cursor.kind, reader.columnTypes()[0] as DuckDBType, value) ?? null;
    } catch (error) {
      throw wrapDuckDBError(error, "source", `reading the ${fn}imum cursor of ${this.key} failed`, this.key);
    }
  }

  async close(): Promise<void> {
    await this.connection.run("ROLLBACK").catch(() => undefined);
    this.db.disconnect(this.connection);
    this.plan.release?.();
    this.ordered?.();
  }
}
