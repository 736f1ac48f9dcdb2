import type { DuckDBConnection } from "@duckdb/node-api";
import {
  defaultSourceCapabilities,
  formatCount,
  type SourceCapabilities,
  type SourceConnection,
  type SourceTableInfo,
  type SourceTableReader,
  type SourceTableRequest,
  SqlloadError,
} from "@sqlload/core";
import { type Engine, openEngine } from "./files-engine.js";
import { type SourceTableOptions, sourceTableOptions } from "./files-options.js";
import { listFiles, listingSignature, type ResolvedTable, resolveTable } from "./files-source-table.js";
import type { FileStore } from "./files-store.js";
import { FILES_PER_COMMIT, FilesTableReader } from "./files-table-reader.js";

/**
 * A folder of Parquet, CSV or JSON-lines files as a source: each table is the files its glob
 * matches, read through DuckDB's own readers. Reads return exactly the requested range; ordered
 * reads go partition by partition (or by Parquet statistics), so commits fall between them.
 */
export class FilesSource implements SourceConnection {
  readonly capabilities: SourceCapabilities = {
    ...defaultSourceCapabilities,
    exactRange: true,
    orderedReads: true,
    snapshot: false,
    firstCursorLookup: true,
  };

  /** Tables described since their files last changed: `plan` describes, then `load` opens the same. */
  private readonly described = new Map<string, { signature: string; table: ResolvedTable }>();

  private constructor(
    private readonly store: FileStore,
    private readonly engine: Engine,
    private readonly connection: DuckDBConnection,
    private readonly sourceName: string,
  ) {}

  static async open(store: FileStore, sourceName: string): Promise<FilesSource> {
    const engine = await openEngine();
    try {
      return new FilesSource(store, engine, await engine.instance.connect(), sourceName);
    } catch (error) {
      engine.close();
      throw error;
    }
  }

  async describeTable(request: SourceTableRequest): Promise<SourceTableInfo> {
    const label = `${this.sourceName}.${request.table.key}`;
    const options = sourceTableOptions(request.table, request.options, this.sourceName);
    const table = await this.resolve(this.connection, request, options, label);
    const notes: string[] = [];
    const cursor = table.cursor;
    // Reading in cursor order is cheap when partitions or Parquet statistics order the files;
    // otherwise every row would be sorted first, so the read commits once.
    const cursorIndexed = cursor !== undefined && (cursor.partition || options.format === "parquet");
    if (cursor?.partition) {
      notes.push(`cursor ${cursor.column.name} is a partition folder: only partitions in the read range are opened`);
    }
    if (cursor && cursorIndexed && cursor.kind !== "text") {
      // The source cannot see batch_size or the strategy: the batch line says which applies.
      notes.push(
        `without batch_size a load commits every ${formatCount(FILES_PER_COMMIT)} files or about 1 GB${cursor.partition ? ", never inside a partition" : ""}`,
      );
    } else if (cursor && !cursorIndexed && cursor.kind !== "text") {
      notes.push(
        `${options.format} files carry no statistics of ${cursor.column.name}: without batch_size the read commits once (a partition folder as cursor commits every ${formatCount(FILES_PER_COMMIT)} files)`,
      );
    }
    const count = table.files.length;
    notes.push(`${formatCount(count)} ${options.format} file${count === 1 ? " matches" : "s match"} ${options.glob}`);
    return {
      columns: table.columns.map((c) => ({ name: c.name, type: c.type, nullable: true })),
      cursorKind: cursor?.kind,
      // Partition values are known from the paths; a column inside files may always hold NULL.
      cursorNullable: cursor?.partition ? table.files.some((f) => f.partitions.get(cursor.column.name) === null) : true,
      cursorIndexed,
      notes,
      // Parquet and CSV go to DuckDB's own readers on a target that has them; JSON lines stay rows.
      fileScan:
        options.format === "parquet" || options.format === "csv" ? { engine: "duckdb", format: options.format } : undefined,
    };
  }

  /** Lists the files again: the reader reads the files there are when the load starts. */
  async openTable(request: SourceTableRequest, info: SourceTableInfo): Promise<SourceTableReader> {
    const label = `${this.sourceName}.${request.table.key}`;
    const options = sourceTableOptions(request.table, request.options, this.sourceName);
    const connection = await this.engine.instance.connect();
    try {
      const table = keepDescribed(await this.resolve(connection, request, options, label), info);
      return new FilesTableReader(connection, table, () => connection.closeSync());
    } catch (error) {
      connection.closeSync();
      throw error;
    }
  }

  private async resolve(
    connection: DuckDBConnection,
    request: SourceTableRequest,
    options: SourceTableOptions,
    label: string,
  ): Promise<ResolvedTable> {
    const files = await listFiles(this.store, options);
    const key = JSON.stringify([request.table.key, request.columns ?? null, request.cursorColumn ?? null, options]);
    const signature = listingSignature(files);
    const known = this.described.get(key);
    if (known && known.signature === signature) return known.table;
    const table = await resolveTable(connection, files, request, options, label, this.store.description);
    this.described.set(key, { signature, table });
    return table;
  }

  async close(): Promise<void> {
    this.connection.closeSync();
    this.engine.close();
  }
}

/**
 * Files that arrived since the table was described may bring columns the target was not made
 * for: the reader reads exactly the described columns, in their order.
 */
function keepDescribed(table: ResolvedTable, info: SourceTableInfo): ResolvedTable {
  if (!info.columns) return table;
  const columns = info.columns.map((described) => {
    const found = table.columns.find((c) => c.name === described.name);
    if (!found) {
      throw new SqlloadError("SL209", `table ${table.label}: column "${described.name}" is in none of its files any more`, {
        table: table.label,
      });
    }
    return found;
  });
  return { ...table, columns };
}
