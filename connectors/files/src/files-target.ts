import type { DuckDBConnection, DuckDBType } from "@duckdb/node-api";
import { cursorFromDuckDB, quoteIdent, wrapDuckDBError } from "@sqlload/connector-duckdb/engine";
import {
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type CursorKind,
  type CursorValue,
  cursorKindOf,
  defaultTargetCapabilities,
  formatLogicalType,
  formatTargetTable,
  holds,
  maxCursor,
  type RunLogReadOptions,
  type RunLogRow,
  SqlloadError,
  type TargetCapabilities,
  type TargetConnection,
  type TargetTableInfo,
  type TargetTableRef,
} from "@sqlload/core";
import { FilesCommitUnit } from "./files-commit-unit.js";
import { type Engine, fileListParameter, openEngine } from "./files-engine.js";
import { collectGarbage } from "./files-gc.js";
import { acquireLease } from "./files-lease.js";
import {
  columnsOf,
  LEASE,
  MANIFEST,
  MANIFEST_FORMAT,
  MANIFEST_TMP,
  MANIFEST_VERSION,
  type Manifest,
  manifestColumns,
  readManifest,
  statsRange,
  tableDir,
} from "./files-manifest.js";
import type { TargetOptions } from "./files-options.js";
import { readRunLogRecords } from "./files-run-log.js";
import type { FileStore } from "./files-store.js";

/**
 * The files target: each table is a folder of Parquet files under `<root>/<schema>/<table>/`
 * whose manifest is replaced by atomic rename at each commit (see files-manifest.ts). A commit
 * unit is one manifest generation, so the commit model is transactional.
 */
export class FilesTarget implements TargetConnection {
  /** What every connection declares; the connector declares the same before connecting. */
  static readonly capabilities: TargetCapabilities = {
    ...defaultTargetCapabilities,
    commitModel: "transactional",
    codePointText: true,
    locking: true,
  };
  readonly capabilities: TargetCapabilities = FilesTarget.capabilities;
  /** Catalog changes of one table in this process, one at a time. */
  private readonly queues = new Map<string, Promise<unknown>>();

  private constructor(
    private readonly store: FileStore,
    private readonly options: TargetOptions,
    private readonly engine: Engine,
    private readonly connection: DuckDBConnection,
  ) {}

  static async open(store: FileStore, options: TargetOptions): Promise<FilesTarget> {
    const engine = await openEngine();
    try {
      return new FilesTarget(store, options, engine, await engine.instance.connect());
    } catch (error) {
      engine.close();
      throw error;
    }
  }

  async describeTable(ref: TargetTableRef): Promise<TargetTableInfo | null> {
    const manifest = await readManifest(this.store, ref, formatTargetTable(ref));
    const columns = manifest && columnsOf(manifest);
    return columns ? { columns } : null;
  }

  /**
   * The maximum from the manifest's per-file statistics (text compared by code point), with no
   * scan; only files whose statistics were not kept (text values longer than 256 characters)
   * are read.
   */
  async maxCursor(ref: TargetTableRef, column: string, kind: CursorKind): Promise<CursorValue | null> {
    const label = formatTargetTable(ref);
    const manifest = await readManifest(this.store, ref, label);
    const found = manifest && columnsOf(manifest)?.find((c) => c.name === column);
    if (!manifest || !found) return null;
    if (cursorKindOf(found.type) !== kind) {
      throw new SqlloadError(
        "SL302",
        `table ${label} column "${column}" is ${formatLogicalType(found.type)}, not a ${kind} cursor`,
        { table: label },
      );
    }
    let best: CursorValue | null = null;
    const scan: string[] = [];
    for (const file of manifest.files) {
      const stats = statsRange(file, column, kind);
      if (stats) best = maxCursor(best, stats.max);
      else scan.push(await this.store.enginePath(`${tableDir(ref)}/${file.path}`));
    }
    if (scan.length === 0) return best;
    try {
      const list = fileListParameter(scan);
      const reader = await this.connection.runAndReadAll(
        `SELECT max(${quoteIdent(column)}) FROM read_parquet($files, union_by_name = true, hive_partitioning = false)`,
        { files: list.value },
        { files: list.type },
      );
      const value = reader.getRows()[0]?.[0];
      if (value === null || value === undefined) return best;
      return maxCursor(best, cursorFromDuckDB(kind, reader.columnTypes()[0] as DuckDBType, value) ?? null);
    } catch (error) {
      throw wrapDuckDBError(error, "target", `reading the maximum of ${label}.${column} failed`, label);
    }
  }

  /**
   * Creates the table (a manifest with its columns and no files) or adds the columns it lacks; a
   * column may also widen (int16 → int32 → int64, float32 → float64), which older files need no
   * rewrite for: readers unify them. Any other change is SL302, and changes nothing.
   */
  async ensureTable(
    ref: TargetTableRef,
    columns: readonly Column[],
    _options: { readonly primaryKey?: readonly string[] | undefined },
  ): Promise<readonly Column[]> {
    const label = formatTargetTable(ref);
    return this.serialize(label, async () => {
      const manifest = await readManifest(this.store, ref, label);
      const existing = manifest ? columnsOf(manifest) : null;
      const next = existing ? evolve(label, existing, columns) : [...columns];
      const partition = this.partitionBy(ref);
      if (partition && !next.some((c) => c.name === partition)) {
        throw new SqlloadError("SL209", `table ${label}: \`partition_by\` column "${partition}" is not among its columns`, {
          table: label,
          hint: "Correct `partition_by` in [target].",
        });
      }
      if (
        !existing ||
        next.length !== existing.length ||
        next.some((c, i) => formatLogicalType(c.type) !== formatLogicalType(existing[i]!.type))
      ) {
        await this.writeManifest(ref, {
          format: MANIFEST_FORMAT,
          version: MANIFEST_VERSION,
          table: `${ref.schema}.${ref.name}`,
          generation: (manifest?.generation ?? 0) + 1,
          committedAt: new Date().toISOString(),
          columns: manifestColumns(next),
          partitionBy: partition ?? manifest?.partitionBy ?? null,
          files: manifest?.files ?? [],
          runLog: manifest?.runLog ?? { last: 0 },
        });
      }
      return next;
    });
  }

  async begin(ref: TargetTableRef, options: CommitUnitOptions): Promise<CommitUnit> {
    const label = formatTargetTable(ref);
    const manifest = await readManifest(this.store, ref, label);
    return FilesCommitUnit.begin({
      store: this.store,
      instance: this.engine.instance,
      ref,
      label,
      options,
      manifest,
      partitionBy: this.partitionBy(ref),
      compression: this.options.compression,
    });
  }

  async readRunLog(ref: TargetTableRef, options?: RunLogReadOptions): Promise<readonly RunLogRow[]> {
    const manifest = await readManifest(this.store, ref, formatTargetTable(ref));
    return readRunLogRecords(this.store, ref, manifest, options?.last);
  }

  /**
   * Takes the table's lease, then removes what a crashed or superseded commit left behind (see
   * files-gc.ts): only the lease holder may, as another run's uncommitted files look the same.
   */
  async lockTable(ref: TargetTableRef): Promise<{ release(): Promise<void> }> {
    const label = formatTargetTable(ref);
    const lease = await acquireLease(this.store, `${tableDir(ref)}/${LEASE}`, label);
    try {
      await collectGarbage(this.store, ref, await readManifest(this.store, ref, label));
    } catch (error) {
      await lease.release();
      throw wrapDuckDBError(error, "target", `cleaning up ${label} failed`, label);
    }
    return lease;
  }

  async close(): Promise<void> {
    this.connection.closeSync();
    this.engine.close();
  }

  private partitionBy(ref: TargetTableRef): string | undefined {
    return this.options.partitionBy.get(ref.name) ?? this.options.partitionBy.get(`${ref.schema}.${ref.name}`);
  }

  private async writeManifest(ref: TargetTableRef, manifest: Manifest): Promise<void> {
    const dir = tableDir(ref);
    await this.store.write(`${dir}/${MANIFEST_TMP}`, `${JSON.stringify(manifest, null, 1)}\n`, { durable: true });
    await this.store.rename(`${dir}/${MANIFEST_TMP}`, `${dir}/${MANIFEST}`);
  }

  private serialize<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const result = previous.then(work);
    this.queues.set(
      key,
      result.catch(() => undefined),
    );
    return result;
  }
}

const INTEGER_RANK: Partial<Record<string, number>> = { int16: 1, int32: 2, int64: 3 };
const FLOAT_RANK: Partial<Record<string, number>> = { float32: 1, float64: 2 };

/**
 * The table's columns after taking in `incoming`: new ones appended, integers and floats
 * widened, everything else required to fit the existing column (text holds decimal, uuid and
 * json values; timestamps with and without zone are both microseconds UTC). Throws SL302.
 */
function evolve(label: string, existing: readonly Column[], incoming: readonly Column[]): Column[] {
  const next = [...existing];
  for (const column of incoming) {
    const i = next.findIndex((c) => c.name === column.name);
    if (i < 0) {
      next.push({ ...column, nullable: true });
      continue;
    }
    const old = next[i] as Column;
    const a = formatLogicalType(old.type);
    const b = formatLogicalType(column.type);
    if (a === b) continue;
    const intOld = INTEGER_RANK[a];
    const intNew = INTEGER_RANK[b];
    if (intOld !== undefined && intNew !== undefined) {
      if (intNew > intOld) next[i] = { ...old, type: column.type };
      continue;
    }
    const floatOld = FLOAT_RANK[a];
    const floatNew = FLOAT_RANK[b];
    if (floatOld !== undefined && floatNew !== undefined) {
      if (floatNew > floatOld) next[i] = { ...old, type: column.type };
      continue;
    }
    if (a === "text" && ["uuid", "json"].includes(b)) continue;
    if (a === "text" && column.type.kind === "decimal") continue;
    if ((a === "timestamp" || a === "timestamptz") && (b === "timestamp" || b === "timestamptz")) continue;
    if (
      old.type.kind === "decimal" &&
      column.type.kind === "decimal" &&
      column.type.scale <= old.type.scale &&
      column.type.precision - column.type.scale <= old.type.precision - old.type.scale
    ) {
      continue;
    }
    // Other lossless widenings (decimal precision or scale up, int → decimal, date → timestamp):
    // older files keep their type, and reads cast them to the manifest's.
    if (holds(column.type, old.type)) {
      next[i] = { ...old, type: column.type };
      continue;
    }
    throw new SqlloadError("SL302", `table ${label} column "${old.name}" changed type from ${a} to ${b}`, { table: label });
  }
  return next;
}
