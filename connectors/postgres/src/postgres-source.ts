import {
  type Column,
  type ConnectorContext,
  type CursorKind,
  defaultSourceCapabilities,
  formatLogicalType,
  type SourceCapabilities,
  type SourceConnection,
  type SourceTableInfo,
  type SourceTableReader,
  type SourceTableRequest,
  SqlloadError,
} from "@sqlload/core";
import { createCursorIndexSql, cursorIndexes } from "./cursor-index.js";
import { toSqlloadError } from "./errors.js";
import { cursorIndexesAndEstimate, defaultCollationIsCodePoint, describeRelation, type Queryable } from "./postgres-catalog.js";
import { PostgresConnection, type PostgresOptions } from "./postgres-connection.js";
import {
  cursorExpression,
  cursorKindOfColumn,
  type PgColumn,
  qualifiedName,
  quoteIdent,
  sortsByCodePoint,
} from "./postgres-dialect.js";
import { keyOrderWarning } from "./postgres-key-order.js";
import { PostgresTableReader } from "./postgres-reader.js";

/** A source table resolved against the catalog: what to select and how to compare its cursor. */
export interface ResolvedTable {
  readonly sql: string;
  /** The table as messages name it (`public.orders`). */
  readonly display: string;
  readonly columns: readonly PgColumn[];
  readonly cursor?: ResolvedCursor | undefined;
  readonly notes: readonly string[];
  /** Roughly what reading the whole table moves, from the catalog's statistics; looked up with the cursor's indexes. */
  readonly fullReadBytes?: number | undefined;
  /** A table nothing inherits from: `COPY table TO` reads all of it without the executor (see copyStatements). */
  readonly wholeCopy: boolean;
}

export interface ResolvedCursor {
  readonly column: PgColumn;
  readonly kind: CursorKind;
  /** `"col"`, or `("col" COLLATE "C")` for text that does not already sort by code point. */
  readonly expression: string;
  /** Text that already sorts by code point, compared without `COLLATE "C"`. */
  readonly native: boolean;
  /** A valid btree index leads with the cursor in the order reads compare it; not looked up for a read. */
  readonly indexed?: boolean | undefined;
  /** Index into `columns`. */
  readonly index: number;
}

export const SNAPSHOT_NOTE =
  "windows are read in one REPEATABLE READ snapshot, held open on the source for the whole table load " +
  "(mind idle_in_transaction_session_timeout and vacuum)";

/**
 * Looks the table up and works out its columns, cursor and notes. Runs on the pool for `plan`,
 * and again inside the snapshot when the table is opened, so a read matches the table it reads;
 * that one skips the cursor's indexes (`indexes: false`), which only planning asks about.
 */
export async function resolveTable(
  db: Queryable,
  request: SourceTableRequest,
  sourceName: string,
  { indexes = true }: { readonly indexes?: boolean } = {},
): Promise<ResolvedTable> {
  const ref = request.table;
  const display = request.table.key;
  const relation = await describeRelation(db, ref);
  if (relation === null) {
    throw new SqlloadError("SL206", `table ${display} was not found in source ${sourceName}`, { table: display });
  }
  const { oid, columns: all, wholeCopy } = relation;
  const byName = new Map(all.map((c) => [c.name, c]));
  const columns = (request.columns ?? all.map((c) => c.name)).map((name) => {
    const column = byName.get(name);
    if (!column)
      throw new SqlloadError("SL209", `column "${name}" is not in ${display} (source ${sourceName})`, { table: display });
    return column;
  });
  const notes: string[] = [];
  if (request.cursorColumn === undefined) return { sql: qualifiedName(ref), display, columns, notes, wholeCopy };

  const column = byName.get(request.cursorColumn);
  if (!column) {
    throw new SqlloadError("SL200", `cursor column "${request.cursorColumn}" is not in ${display} (source ${sourceName})`, {
      table: display,
    });
  }
  const kind = cursorKindOfColumn(column);
  if (!kind) {
    throw new SqlloadError(
      "SL201",
      `cursor column "${column.name}" of ${display} is ${column.declared} (${formatLogicalType(column.type)}), which cannot be a cursor`,
      { table: display },
    );
  }
  // Commit points need the cursor's values in each batch, so it is read even when not listed.
  let index = columns.indexOf(column);
  if (index < 0) index = columns.push(column) - 1;

  const native = kind === "text" && sortsByCodePoint(column, await defaultCollationIsCodePoint(db));
  const expression = cursorExpression(column, kind, native);
  if (!indexes)
    return { sql: qualifiedName(ref), display, columns, cursor: { column, kind, expression, native, index }, notes, wholeCopy };
  const found = await cursorIndexesAndEstimate(db, oid, column.name);
  const { btrees, usable } = cursorIndexes(found.indexes, column, kind, native);
  const indexed = usable.length > 0;
  if (!indexed)
    notes.push(
      indexNote(
        ref,
        column,
        { kind, native },
        btrees.map((i) => i.name),
      ),
    );
  return {
    sql: qualifiedName(ref),
    display,
    columns,
    cursor: { column, kind, expression, native, indexed, index },
    notes,
    fullReadBytes: found.bytes,
    wholeCopy,
  };
}

function indexNote(
  ref: SourceTableRequest["table"],
  column: PgColumn,
  cursor: { readonly kind: CursorKind; readonly native: boolean },
  unusable: readonly string[],
): string {
  const name = quoteIdent(column.name);
  const create = createCursorIndexSql(ref, column, cursor.kind, cursor.native);
  if (unusable.length > 0) {
    const names = unusable.map((n) => quoteIdent(n)).join(", ");
    return (
      `index ${names} on ${name} will not be used: text cursors compare with COLLATE "C" (code point order) ` +
      `and the index uses another collation; to read in cursor order from an index, create: ${create}`
    );
  }
  return `no index leads with the cursor column ${name}, so reads scan and sort the table; to avoid it, create: ${create}`;
}

function plainColumn(c: PgColumn): Column {
  return { name: c.name, type: c.type, nullable: c.nullable };
}

/** A Postgres database as a source: catalog lookups on a pool, one snapshot per opened table. */
export class PostgresSource implements SourceConnection {
  readonly capabilities: SourceCapabilities = {
    ...defaultSourceCapabilities,
    exactRange: true,
    orderedReads: true,
    snapshot: true,
    firstCursorLookup: true,
  };
  private readonly connection: PostgresConnection;
  /** Open tables hold pooled clients; the pool cannot end until they are back. */
  private readonly readers = new Set<PostgresTableReader>();

  constructor(
    options: PostgresOptions,
    private readonly name: string,
  ) {
    this.connection = new PostgresConnection(options);
  }

  private context(action: string, table?: string) {
    return { role: "source" as const, action: `${action} (source ${this.name}, ${this.connection.display})`, table };
  }

  /** Reaches the server now, so core retries a refused connection before any table is described. */
  async connect(): Promise<void> {
    const client = await this.connection.acquire().catch((error) => {
      throw toSqlloadError(error, this.context("connecting"));
    });
    client.release();
  }

  async describeTable(request: SourceTableRequest): Promise<SourceTableInfo> {
    const client = await this.connection.acquire().catch((error) => {
      throw toSqlloadError(error, this.context("connecting", request.table.key));
    });
    try {
      const resolved = await resolveTable(client, request, this.name);
      const keyOrder = await keyOrderWarning(client, resolved);
      return {
        columns: resolved.columns.map(plainColumn),
        cursorKind: resolved.cursor?.kind,
        cursorNullable: resolved.cursor?.column.nullable,
        cursorIndexed: resolved.cursor?.indexed,
        fullReadBytes: resolved.fullReadBytes,
        notes: keyOrder ? [...resolved.notes, keyOrder] : resolved.notes,
        windowNotes: [SNAPSHOT_NOTE],
      };
    } catch (error) {
      throw toSqlloadError(error, this.context(`describing ${request.table.key}`, request.table.key));
    } finally {
      client.release();
    }
  }

  async openTable(request: SourceTableRequest, _info: SourceTableInfo): Promise<SourceTableReader> {
    const client = await this.connection.acquire().catch((error) => {
      throw toSqlloadError(error, this.context("connecting", request.table.key));
    });
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const resolved = await resolveTable(client, request, this.name, { indexes: false });
      const reader = new PostgresTableReader(
        client,
        resolved,
        (action) => this.context(action, request.table.key),
        () => this.readers.delete(reader),
      );
      this.readers.add(reader);
      return reader;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
      throw toSqlloadError(error, this.context(`opening ${request.table.key}`, request.table.key));
    }
  }

  async close(): Promise<void> {
    for (const reader of [...this.readers]) await reader.close().catch(() => undefined);
    await this.connection.end();
  }
}

export async function createPostgresSource(context: ConnectorContext): Promise<SourceConnection> {
  return new PostgresSource(context.options as PostgresOptions, context.sourceName ?? "postgres");
}
