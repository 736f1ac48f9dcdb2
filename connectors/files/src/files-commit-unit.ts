import { randomBytes } from "node:crypto";
import type { DuckDBConnection, DuckDBInstance, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import {
  type AppendTarget,
  appendBatch,
  cursorFromDuckDB,
  duckdbRange,
  duckdbTypeSql,
  measureBatch,
  quoteIdent,
  quoteString,
  runStatement,
  type SqlCondition,
  StagedMerge,
  wrapDuckDBError,
  writingTable,
} from "@sqlload/connector-duckdb/engine";
import {
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type CursorRange,
  type CursorValue,
  compareCursor,
  cursorKindOf,
  cursorToString,
  overlapsCursorRange,
  parseLogicalType,
  type RecordBatch,
  type RunLogRow,
  SqlloadError,
  spanInCursorRange,
  type TargetTableRef,
} from "@sqlload/core";
import { fileListParameter } from "./files-engine.js";
import { partitionFolder } from "./files-hive.js";
import {
  MANIFEST,
  MANIFEST_FORMAT,
  MANIFEST_TMP,
  MANIFEST_VERSION,
  MAX_TEXT_STAT,
  type Manifest,
  type ManifestFile,
  type ManifestStats,
  manifestColumns,
  readManifest,
  statColumns,
  statsRange,
  tableDir,
} from "./files-manifest.js";
import { writeRunLogRecord } from "./files-run-log.js";
import type { FileStore } from "./files-store.js";

/**
 * Test-only: milliseconds to sleep after a commit wrote its data files and run-log records, just
 * before the manifest rename, so a crash test can kill the process exactly there.
 */
export const TEST_PAUSE_ENV = "SQLLOAD_FILES_TEST_PAUSE_BEFORE_MANIFEST";

export interface UnitContext {
  readonly store: FileStore;
  readonly instance: DuckDBInstance;
  readonly ref: TargetTableRef;
  readonly label: string;
  readonly options: CommitUnitOptions;
  /** The manifest when the unit began; commit refuses to replace another one. */
  readonly manifest: Manifest | null;
  /** The partition column configured for this table, if any. */
  readonly partitionBy: string | undefined;
  /** Parquet compression codec of the data files. */
  readonly compression: string;
}

let units = 0;

/** A range delete, applied to the manifest's files at commit. */
interface PendingDelete {
  readonly range: CursorRange;
  readonly includeNulls: boolean;
}

/**
 * One commit into a files-target table. Rows wait in a table of the in-memory engine (spilling
 * to disk when large); nothing touches the table's folder until `commit`, which writes new data
 * files under fresh names (new rows, and rewrites of the files a range delete or merge touches),
 * the run-log records, then the manifest by atomic rename. `abort` drops the staged rows.
 */
export class FilesCommitUnit implements CommitUnit {
  private open = true;
  private columns: readonly Column[] | null;
  private readonly stage: string;
  private readonly incoming: string;
  private staged = false;
  /** A merge's batches, waiting to replace the staged rows of their keys (StagedMerge). */
  private merging: StagedMerge | undefined;
  private readonly deletes: PendingDelete[] = [];
  private readonly records: RunLogRow[] = [];

  private constructor(
    private readonly context: UnitContext,
    private readonly connection: DuckDBConnection,
  ) {
    const n = ++units;
    this.stage = `stage_${n}`;
    this.incoming = `incoming_${n}`;
    const known =
      context.options.strategy === "replace" ? context.options.columns : (columnsOfManifest(context) ?? context.options.columns);
    this.columns = known.length > 0 ? known : null;
  }

  static async begin(context: UnitContext): Promise<FilesCommitUnit> {
    const connection = await context.instance.connect();
    const unit = new FilesCommitUnit(context, connection);
    try {
      if (unit.columns) await unit.createStage(unit.columns);
      return unit;
    } catch (error) {
      connection.closeSync();
      throw wrapDuckDBError(error, "target", `cannot start a commit on ${context.label}`, context.label);
    }
  }

  private async createStage(columns: readonly Column[]): Promise<void> {
    const defs = columns.map((c) => `${quoteIdent(c.name)} ${duckdbTypeSql(c.type)}`).join(", ");
    await this.connection.run(`CREATE TABLE ${this.stage} (${defs})`);
    this.columns = columns;
    this.staged = true;
  }

  async deleteRange(range: CursorRange, options?: { readonly includeNulls?: boolean }): Promise<void> {
    this.check();
    const cursor = this.context.options.cursor;
    if (!cursor) throw new SqlloadError("SL900", `deleteRange on ${this.context.label}, which has no cursor column`);
    const includeNulls = options?.includeNulls ?? false;
    this.deletes.push({ range, includeNulls });
    if (!this.staged) return;
    await this.merging?.settle();
    // Rows this unit wrote before the delete go too, as in a database transaction.
    const column = this.column(cursor.column);
    const condition = duckdbRange({
      column: column.name,
      kind: cursor.kind,
      range,
      includeNulls,
      withZone: column.type.kind === "timestamptz",
    });
    await this.run(`DELETE FROM ${this.stage} WHERE ${condition.sql}`, condition.values, condition.types);
  }

  async write(batch: RecordBatch): Promise<void> {
    this.check();
    if (batch.length === 0) return;
    if (!this.staged) {
      if (this.context.options.strategy !== "replace") {
        throw new SqlloadError("SL305", `table ${this.context.label} does not exist`, {
          hint: "Create it with ensureTable first.",
        });
      }
      await this.guard(() => this.createStage(batch.schema));
    }
    const names = (this.columns ?? []).map((c) => c.name);
    if (this.context.options.strategy !== "merge") {
      await this.guard(() => appendBatch(this.connection, this.appendTarget(this.stage, names), batch));
      return;
    }
    // merge: the batch replaces staged rows of its keys, so the last write of a key wins.
    this.merging ??= new StagedMerge(this.connection, {
      into: this.stage,
      columns: names,
      keys: this.keys().map((k) => ({ column: this.column(k).name, name: k })),
      stage: this.incoming,
      label: this.context.label,
      exactNames: true,
    });
    await this.merging.write(batch, measureBatch(batch).bytes);
  }

  /**
   * A table of this unit's connection as the appender's target. Names match exactly: the
   * table's columns become Parquet columns, whose names are case-sensitive.
   */
  private appendTarget(name: string, columns: readonly string[]): AppendTarget {
    return { schema: "main", name, columns, label: this.context.label, exactNames: true };
  }

  async appendRunLog(row: RunLogRow): Promise<void> {
    this.check();
    this.records.push(row);
  }

  async commit(): Promise<void> {
    this.check();
    const { store, ref, label } = this.context;
    const written: string[] = [];
    try {
      await this.merging?.settle();
      const current = await readManifest(store, ref, label);
      if ((current?.generation ?? 0) !== (this.context.manifest?.generation ?? 0)) {
        throw new SqlloadError("SL305", `table ${label} was committed by another writer while this commit was open`, {
          table: label,
          retryable: true,
          hint: "Run again; runs of one table take its lease so this does not happen.",
        });
      }
      const generation = (current?.generation ?? 0) + 1;
      const replace = this.context.options.strategy === "replace";
      const files: ManifestFile[] = [];
      if (current && !replace) files.push(...(await this.applyDeletes(current, generation, written)));
      files.push(...(await this.writeStaged(generation, written)));
      const last = current?.runLog.last ?? 0;
      for (let i = 0; i < this.records.length; i++) {
        const path = await writeRunLogRecord(store, ref, last + i + 1, this.records[i] as RunLogRow);
        written.push(path);
        await store.sync(path);
      }
      const columns = this.columns ?? columnsOfManifest(this.context);
      const partitionBy = this.partitionColumn();
      const manifest: Manifest = {
        format: MANIFEST_FORMAT,
        version: MANIFEST_VERSION,
        table: `${ref.schema}.${ref.name}`,
        generation,
        committedAt: new Date().toISOString(),
        columns: columns && columns.length > 0 ? manifestColumns(columns) : (current?.columns ?? null),
        partitionBy: partitionBy ?? current?.partitionBy ?? null,
        files,
        runLog: { last: last + this.records.length },
      };
      await testPause();
      const dir = tableDir(ref);
      await store.write(`${dir}/${MANIFEST_TMP}`, `${JSON.stringify(manifest, null, 1)}\n`, { durable: true });
      // The commit: from here on readers and later runs see the new files, and only them.
      await store.rename(`${dir}/${MANIFEST_TMP}`, `${dir}/${MANIFEST}`);
    } catch (error) {
      // Files of a commit that did not happen; the next run's collection would remove them too.
      await Promise.all(written.map((path) => store.delete(path).catch(() => undefined)));
      throw wrapDuckDBError(error, "target", `committing ${label} failed`, label);
    } finally {
      await this.close();
    }
  }

  async abort(): Promise<void> {
    if (!this.open) return;
    await this.close();
  }

  /**
   * The files of `manifest` after this unit's range deletes and merge: untouched files stay as
   * they are, files whose rows all go are dropped, and the others are rewritten without those
   * rows under new names. Statistics decide without opening a file wherever they can.
   */
  private async applyDeletes(manifest: Manifest, generation: number, written: string[]): Promise<ManifestFile[]> {
    const merging = this.context.options.strategy === "merge" && this.staged && (await this.count(this.stage)) > 0;
    const mergeHits = merging ? await this.filesHoldingStagedKeys(manifest) : new Set<string>();
    const out: ManifestFile[] = [];
    for (const file of manifest.files) {
      const predicates: SqlCondition[] = [];
      let drop = false;
      const cursor = this.context.options.cursor;
      if (cursor) {
        this.deletes.forEach((d, i) => {
          if (drop) return;
          const stats = statsRange(file, cursor.column, cursor.kind);
          if (stats) {
            const valueHit = stats.min !== null && stats.max !== null && overlapsCursorRange(stats.min, stats.max, d.range);
            const nullHit = d.includeNulls && stats.nulls > 0;
            if (!valueHit && !nullHit) return;
            const valuesGone = stats.min === null || stats.max === null || spanInCursorRange(stats.min, stats.max, d.range);
            if (valuesGone && (stats.nulls === 0 || d.includeNulls)) {
              drop = true;
              return;
            }
          }
          const column = this.column(cursor.column);
          predicates.push(
            duckdbRange({
              column: column.name,
              kind: cursor.kind,
              range: d.range,
              includeNulls: d.includeNulls,
              qualifier: "t",
              withZone: column.type.kind === "timestamptz",
              prefix: `d${i}_`,
            }),
          );
        });
      }
      if (drop) continue;
      const merge = mergeHits.has(file.path);
      if (predicates.length === 0 && !merge) {
        out.push(file);
        continue;
      }
      const rewritten = await this.rewrite(file, predicates, merge, generation, written);
      if (rewritten) out.push(rewritten);
    }
    return out;
  }

  /** The manifest files (by path) holding a key the stage holds, skipping files whose key statistics rule it out. */
  private async filesHoldingStagedKeys(manifest: Manifest): Promise<Set<string>> {
    const keys = this.keys();
    const dir = tableDir(this.context.ref);
    const ranges = await this.stagedKeyRanges(keys);
    const candidates = manifest.files.filter((file) =>
      ranges.every(({ key, kind, min, max }) => {
        const stats = statsRange(file, key, kind);
        if (!stats) return true;
        return (
          stats.min !== null && stats.max !== null && compareCursor(stats.min, max) <= 0 && compareCursor(min, stats.max) <= 0
        );
      }),
    );
    if (candidates.length === 0) return new Set();
    const paths = await Promise.all(candidates.map((f) => this.context.store.enginePath(`${dir}/${f.path}`)));
    const byEngine = new Map(paths.map((p, i) => [p, (candidates[i] as ManifestFile).path]));
    const list = fileListParameter(paths);
    const match = keys.map((k) => `t.${quoteIdent(k)} IS NOT DISTINCT FROM s.${quoteIdent(k)}`).join(" AND ");
    const reader = await this.connection.runAndReadAll(
      `SELECT DISTINCT t.__sqlload_file FROM read_parquet($files, union_by_name = true, hive_partitioning = false, filename = '__sqlload_file') AS t
         SEMI JOIN ${this.stage} AS s ON (${match})`,
      { files: list.value },
      { files: list.type },
    );
    return new Set(reader.getRows().map(([file]) => byEngine.get(String(file)) as string));
  }

  /**
   * The smallest and largest staged value of each key column that can be compared (and holds no
   * NULL, which would match a file's NULLs): files outside them cannot hold a staged key.
   */
  private async stagedKeyRanges(
    keys: readonly string[],
  ): Promise<{ key: string; kind: NonNullable<ReturnType<typeof cursorKindOf>>; min: CursorValue; max: CursorValue }[]> {
    const out: { key: string; kind: NonNullable<ReturnType<typeof cursorKindOf>>; min: CursorValue; max: CursorValue }[] = [];
    for (const key of keys) {
      const column = this.column(key);
      const kind = cursorKindOf(column.type);
      if (!kind) continue;
      const q = quoteIdent(key);
      const reader = await this.connection.runAndReadAll(
        `SELECT min(${q}), max(${q}), count(*) - count(${q}) FROM ${this.stage}`,
      );
      const [lo, hi, nulls] = reader.getRows()[0] ?? [];
      const types = reader.columnTypes();
      if (Number(nulls) > 0 || lo === null || lo === undefined || hi === null || hi === undefined) continue;
      const min = cursorFromDuckDB(kind, types[0] as DuckDBType, lo);
      const max = cursorFromDuckDB(kind, types[1] as DuckDBType, hi);
      if (min && max) out.push({ key, kind, min, max });
    }
    return out;
  }

  /** Writes `file` again without the rows the predicates (or the staged keys) select; null when nothing is left. */
  private async rewrite(
    file: ManifestFile,
    predicates: readonly SqlCondition[],
    merge: boolean,
    generation: number,
    written: string[],
  ): Promise<ManifestFile | null> {
    const { store, ref } = this.context;
    const dir = tableDir(ref);
    const source = await store.enginePath(`${dir}/${file.path}`);
    const list = fileListParameter([source]);
    const match = this.keys(merge)
      .map((k) => `${file.columns.includes(k) ? `t.${quoteIdent(k)}` : "NULL"} IS NOT DISTINCT FROM s.${quoteIdent(k)}`)
      .join(" AND ");
    const where = predicates.length > 0 ? ` WHERE ${predicates.map((p) => `(${p.sql}) IS NOT TRUE`).join(" AND ")}` : "";
    const values: Record<string, DuckDBValue> = { files: list.value };
    const types: Record<string, DuckDBType | undefined> = { files: list.type };
    for (const p of predicates) {
      Object.assign(values, p.values);
      Object.assign(types, p.types);
    }
    const table = `rewrite_${++units}`;
    await this.run(
      `CREATE TEMP TABLE ${table} AS SELECT t.* FROM read_parquet($files, hive_partitioning = false) AS t${merge ? ` ANTI JOIN ${this.stage} AS s ON (${match})` : ""}${where}`,
      values,
      types,
    );
    try {
      const folder = file.path.includes("/") ? file.path.slice(0, file.path.lastIndexOf("/")) : "";
      const [result] = await this.writeFiles(table, generation, written, { folder, partition: file.partition });
      return result ?? null;
    } finally {
      await this.run(`DROP TABLE IF EXISTS ${table}`);
    }
  }

  /** Writes the staged rows: one new file per partition value, or one file. */
  private async writeStaged(generation: number, written: string[]): Promise<ManifestFile[]> {
    if (!this.staged) return [];
    const partition = this.partitionColumn();
    return this.writeFiles(this.stage, generation, written, partition ? { partitionColumn: partition } : { folder: "" });
  }

  /**
   * Writes the rows of an engine table as Parquet files (one per value of `partitionColumn`, or
   * one into `folder`), with their row counts and statistics computed from the rows themselves.
   */
  private async writeFiles(
    table: string,
    generation: number,
    written: string[],
    layout: { partitionColumn?: string; folder?: string; partition?: ManifestFile["partition"] },
  ): Promise<ManifestFile[]> {
    const { store, ref } = this.context;
    const dir = tableDir(ref);
    const described = await this.connection.runAndReadAll(`SELECT * FROM ${table} LIMIT 0`);
    const columnNames = described.columnNames();
    const columns = (this.columns ?? []).filter((c) => columnNames.includes(c.name));
    const stats = statColumns(columns);
    const group = layout.partitionColumn ? `CAST(${quoteIdent(layout.partitionColumn)} AS VARCHAR)` : "NULL::VARCHAR";
    const aggregates = stats.flatMap((s) => {
      const q = quoteIdent(s.name);
      return [`min(${q})`, `max(${q})`, `count(*) - count(${q})`];
    });
    const reader = await this.connection.runAndReadAll(
      `SELECT ${group} AS g, count(*) AS n${aggregates.map((a) => `, ${a}`).join("")} FROM ${table} GROUP BY ALL ORDER BY g NULLS FIRST`,
    );
    const types = reader.columnTypes();
    const out: ManifestFile[] = [];
    for (const row of reader.getRows()) {
      const rows = Number(row[1]);
      if (rows === 0) continue;
      const value = row[0] === null ? null : String(row[0]);
      const folder = layout.partitionColumn ? partitionFolder(layout.partitionColumn, value) : (layout.folder ?? "");
      const name = `part-${String(generation).padStart(8, "0")}-${randomBytes(6).toString("hex")}.parquet`;
      const path = folder ? `${folder}/${name}` : name;
      const full = `${dir}/${path}`;
      const target = await store.enginePath(full, { forWrite: true });
      written.push(full);
      const filter = layout.partitionColumn ? ` WHERE ${group} IS NOT DISTINCT FROM $g` : "";
      await this.run(
        `COPY (SELECT * FROM ${table}${filter}) TO ${quoteString(target)} (FORMAT parquet, COMPRESSION ${this.context.compression})`,
        layout.partitionColumn ? { g: value } : undefined,
      );
      await store.sync(full);
      const fileStats: Record<string, ManifestStats> = {};
      stats.forEach((s, i) => {
        const lo = row[2 + 3 * i] ?? null;
        const hi = row[3 + 3 * i] ?? null;
        const toText = (v: DuckDBValue, type: DuckDBType): string | null | undefined => {
          if (v === null) return null;
          const cursor = cursorFromDuckDB(s.kind, type, v);
          if (!cursor) return undefined;
          const text = cursor.kind === "text" ? cursor.value : undefined;
          if (text !== undefined && text.length > MAX_TEXT_STAT) return undefined;
          return cursor.kind === "text" ? cursor.value : cursorToString(cursor);
        };
        const min = toText(lo, types[2 + 3 * i] as DuckDBType);
        const max = toText(hi, types[3 + 3 * i] as DuckDBType);
        // A value too long to keep, or of a type the cursor kind cannot hold: no statistics, a scan answers.
        if (min === undefined || max === undefined) return;
        fileStats[s.name] = { min, max, nulls: Number(row[4 + 3 * i]) };
      });
      const size = (await store.stat(full))?.size ?? 0;
      out.push({
        path,
        rows,
        bytes: size,
        columns: columnNames,
        ...(layout.partitionColumn
          ? { partition: { column: layout.partitionColumn, value } }
          : layout.partition
            ? { partition: layout.partition }
            : {}),
        stats: fileStats,
      });
    }
    return out;
  }

  /** The configured partition column, when the table has it. */
  private partitionColumn(): string | undefined {
    const column = this.context.partitionBy;
    if (!column) return undefined;
    const columns = this.columns ?? columnsOfManifest(this.context) ?? [];
    if (!columns.some((c) => c.name === column)) {
      throw new SqlloadError(
        "SL209",
        `table ${this.context.label}: \`partition_by\` column "${column}" is not among its columns`,
        {
          table: this.context.label,
          hint: "Correct `partition_by` in [target].",
        },
      );
    }
    return column;
  }

  private keys(required = true): string[] {
    const keys = this.context.options.primaryKey ?? [];
    if (required && keys.length === 0) throw new SqlloadError("SL108", `merge into ${this.context.label} needs a primary key`);
    return [...keys];
  }

  private column(name: string): Column {
    const column = (this.columns ?? []).find((c) => c.name === name);
    if (!column) throw new SqlloadError("SL305", `${this.context.label} has no column "${name}"`, { table: this.context.label });
    return column;
  }

  private async count(table: string): Promise<number> {
    const reader = await this.connection.runAndReadAll(`SELECT count(*) FROM ${table}`);
    return Number(reader.getRows()[0]?.[0] ?? 0);
  }

  private async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    this.merging?.discard();
    try {
      await this.connection.run(`DROP TABLE IF EXISTS ${this.stage}`);
      await this.connection.run(`DROP TABLE IF EXISTS ${this.incoming}`);
    } catch {
    } finally {
      this.connection.closeSync();
    }
  }

  private check(): void {
    if (!this.open) throw new SqlloadError("SL900", `the commit unit of ${this.context.label} was used after it ended`);
  }

  private async run(
    sql: string,
    values?: Record<string, DuckDBValue>,
    types?: Record<string, DuckDBType | undefined>,
  ): Promise<void> {
    await this.guard(() => runStatement(this.connection, sql, values, types));
  }

  private guard<T>(work: () => Promise<T>): Promise<T> {
    return writingTable(this.context.label, work);
  }
}

function columnsOfManifest(context: UnitContext): Column[] | null {
  const manifest = context.manifest;
  if (!manifest?.columns) return null;
  return manifest.columns.map((c) => ({ name: c.name, type: parseType(c.type, context.label), nullable: c.nullable }));
}

function parseType(text: string, label: string) {
  const type = parseLogicalType(text);
  if (!type) throw new SqlloadError("SL305", `the manifest of ${label} has a column of unknown type ${text}`, { table: label });
  return type;
}

async function testPause(): Promise<void> {
  const ms = Number(process.env[TEST_PAUSE_ENV] ?? 0);
  if (!(ms > 0)) return;
  process.stderr.write(`sqlload-files: test pause of ${ms} ms before the manifest rename (${TEST_PAUSE_ENV})\n`);
  await new Promise((resolve) => setTimeout(resolve, ms));
}
