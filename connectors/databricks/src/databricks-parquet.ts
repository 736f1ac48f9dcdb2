import { join } from "node:path";
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import type { Column, LogicalType, RecordBatch } from "@sqlload/core";
import { SEQUENCE_COLUMN } from "./databricks-statements.js";

/** Rows per staged file: files of tens of MB, which COPY INTO reads in parallel. */
export const ROWS_PER_FILE = 500_000;

type Engine = typeof import("@sqlload/connector-duckdb/engine");

/**
 * The Parquet expression of a staged column, from its DuckDB type to what the Delta column
 * holds, so COPY INTO finds the file's type equal to the table's: time as `HH:MM:SS.ffffff`
 * text and uuid and JSON as text (Delta has none of the three), element by element in lists.
 * Everything else is written as it is: Parquet holds 64-bit integers, 38-digit decimals,
 * microsecond timestamps (TIMESTAMP_NTZ as local, TIMESTAMP as UTC-adjusted), bytes and nested
 * lists exactly.
 */
export function parquetExpression(expression: string, type: LogicalType, depth = 0): string {
  switch (type.kind) {
    case "time":
      return `strftime(DATE '1970-01-01' + ${expression}, '%H:%M:%S.%f')`;
    case "uuid":
    case "json":
      return `CAST(${expression} AS VARCHAR)`;
    case "list": {
      const x = `x${depth}`;
      const inner = parquetExpression(x, type.element, depth + 1);
      return inner === x ? expression : `list_transform(${expression}, ${x} -> ${inner})`;
    }
    default:
      return expression;
  }
}

/**
 * A unit's rows staged in an in-memory DuckDB (spilling to a temporary folder when large) and
 * written out as Parquet files for the volume. Batches keep the columns' own logical types here;
 * `writeFiles` converts them to the Delta types. Every row carries its write order in
 * `_sqlload_seq`, as the build table's rows do, so a merge keeps each key's last row.
 */
export class ParquetStage {
  private rowCount = 0;

  private constructor(
    private readonly engine: Engine,
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
    private readonly columns: readonly Column[],
  ) {}

  /** DuckDB loads only when a unit goes through the volume. */
  static async open(columns: readonly Column[], spillDir: string): Promise<ParquetStage> {
    const engine = await import("@sqlload/connector-duckdb/engine");
    const instance = await engine.DuckDBInstance.create(":memory:", {
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
      temp_directory: join(spillDir, "spill"),
      threads: "2",
    });
    try {
      const connection = await instance.connect();
      await connection.run("SET TimeZone = 'UTC'");
      const q = engine.quoteIdent;
      const definitions = [
        ...columns.map((c) => `${q(c.name)} ${engine.duckdbTypeSql(c.type)}`),
        `${q(SEQUENCE_COLUMN)} BIGINT NOT NULL`,
      ];
      await connection.run(`CREATE TABLE stage (${definitions.join(", ")})`);
      return new ParquetStage(engine, instance, connection, columns);
    } catch (error) {
      instance.closeSync();
      throw error;
    }
  }

  get rows(): number {
    return this.rowCount;
  }

  /** Appends a batch whose columns are (a subset of) the stage's; the unit's rows are numbered from 0 in write order. */
  async append(batch: RecordBatch, firstSeq: number): Promise<void> {
    if (batch.length === 0) return;
    const seq = new BigInt64Array(batch.length);
    for (let i = 0; i < batch.length; i++) seq[i] = BigInt(firstSeq + i);
    const withSeq: RecordBatch = {
      schema: [...batch.schema, { name: SEQUENCE_COLUMN, type: { kind: "int64" }, nullable: false }],
      length: batch.length,
      columns: [...batch.columns, { values: seq }],
    };
    await this.engine.appendBatch(
      this.connection,
      {
        schema: "main",
        name: "stage",
        columns: [...this.columns.map((c) => c.name), SEQUENCE_COLUMN],
        label: "the Databricks bulk stage",
        exactNames: true,
      },
      withSeq,
    );
    this.rowCount += batch.length;
  }

  /** Writes the staged rows as Parquet files of up to `rowsPerFile` rows into `dir`; returns their paths. */
  async writeFiles(dir: string, name: (index: number) => string, rowsPerFile = ROWS_PER_FILE): Promise<string[]> {
    const { quoteIdent: q, quoteString } = this.engine;
    const select = [
      ...this.columns.map((c) => `${parquetExpression(q(c.name), c.type)} AS ${q(c.name)}`),
      q(SEQUENCE_COLUMN),
    ].join(", ");
    const files: string[] = [];
    for (let start = 0; start < this.rowCount; start += rowsPerFile) {
      const path = join(dir, name(files.length));
      await this.connection.run(
        `COPY (SELECT ${select} FROM stage WHERE ${q(SEQUENCE_COLUMN)} >= ${start} AND ${q(SEQUENCE_COLUMN)} < ${start + rowsPerFile} ORDER BY ${q(SEQUENCE_COLUMN)}) TO ${quoteString(path)} (FORMAT parquet)`,
      );
      files.push(path);
    }
    return files;
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}
