import {
  type Column,
  type CursorKind,
  type CursorValue,
  cursorKindOf,
  formatLogicalType,
  parseCursor,
  parseLogicalType,
  SqlloadError,
  type TargetTableRef,
} from "@sqlload/core";
import { encodeSegment } from "./files-hive.js";
import type { FileStore } from "./files-store.js";

/**
 * A files-target table is a folder `<root>/<schema>/<table>/` whose `manifest.json` is the
 * truth: it names every live data file with its row count and per-column statistics, the
 * table's columns, and how far the run log goes. A commit writes new files under fresh names,
 * then `manifest.json.tmp`, then renames it over `manifest.json` (atomic), so a reader sees the
 * table before or after a commit, never between. Files the manifest does not name are garbage.
 */
export const MANIFEST = "manifest.json";
export const MANIFEST_TMP = "manifest.json.tmp";
/** sqlload's own objects beside the data: the run log and the lease. */
export const META_DIR = "_sqlload";
export const RUNS_DIR = `${META_DIR}/runs`;
export const LEASE = `${META_DIR}/lease.json`;

export const MANIFEST_FORMAT = "sqlload-files-manifest";
export const MANIFEST_VERSION = 1;

/** Statistics of one column in one file; values as `cursorToString` writes them. */
export interface ManifestStats {
  readonly min: string | null;
  readonly max: string | null;
  readonly nulls: number;
}

export interface ManifestFile {
  /** Relative to the table folder, with `/`. */
  readonly path: string;
  readonly rows: number;
  readonly bytes: number;
  /** The columns the file holds (a column added later is NULL in older files). */
  readonly columns: readonly string[];
  /** The partition this file belongs to, when the table is partitioned: column and value as text. */
  readonly partition?: { readonly column: string; readonly value: string | null } | undefined;
  /** Min, max and NULL count of each integer, date, timestamp and (short) text column. */
  readonly stats: Readonly<Record<string, ManifestStats>>;
}

export interface ManifestColumn {
  readonly name: string;
  /** `int64`, `decimal(12,2)`, `list<text>`: core's formatLogicalType. */
  readonly type: string;
  readonly nullable: boolean;
}

export interface Manifest {
  readonly format: typeof MANIFEST_FORMAT;
  readonly version: number;
  /** `schema.table`, for people reading the file. */
  readonly table: string;
  /** Grows by one with each commit. */
  readonly generation: number;
  readonly committedAt: string;
  /** Null while the table only has a run log (a unit committed before any row told its columns). */
  readonly columns: readonly ManifestColumn[] | null;
  readonly partitionBy: string | null;
  readonly files: readonly ManifestFile[];
  /** Run-log records `1..last` under `_sqlload/runs/` are committed; later ones are garbage. */
  readonly runLog: { readonly last: number };
}

/** The table's folder, relative to the target root. */
export function tableDir(ref: TargetTableRef): string {
  return `${encodeSegment(ref.schema)}/${encodeSegment(ref.name)}`;
}

export function manifestColumns(columns: readonly Column[]): ManifestColumn[] {
  return columns.map((c) => ({ name: c.name, type: formatLogicalType(c.type), nullable: c.nullable }));
}

export function columnsOf(manifest: Manifest): Column[] | null {
  if (!manifest.columns) return null;
  return manifest.columns.map((c) => {
    const type = parseLogicalType(c.type);
    if (!type)
      throw new SqlloadError("SL305", `the manifest of ${manifest.table} has column "${c.name}" of unknown type ${c.type}`);
    return { name: c.name, type, nullable: c.nullable };
  });
}

/** Reads a table's manifest; null when the table does not exist. */
export async function readManifest(store: FileStore, ref: TargetTableRef, label: string): Promise<Manifest | null> {
  const path = `${tableDir(ref)}/${MANIFEST}`;
  const bytes = await store.read(path);
  if (!bytes) return null;
  let manifest: Manifest;
  try {
    manifest = JSON.parse(Buffer.from(bytes).toString("utf8")) as Manifest;
  } catch (cause) {
    throw new SqlloadError(
      "SL305",
      `the manifest of ${label} (${store.description}/${path}) is not JSON: ${(cause as Error).message}`,
      {
        table: label,
        cause,
        hint: "The manifest is only ever replaced whole, by rename: restore it from a backup, or remove the table's folder to load it anew.",
      },
    );
  }
  if (manifest.format !== MANIFEST_FORMAT || typeof manifest.generation !== "number" || !Array.isArray(manifest.files)) {
    throw new SqlloadError("SL305", `${store.description}/${path} is not a sqlload manifest`, { table: label });
  }
  if (manifest.version > MANIFEST_VERSION) {
    throw new SqlloadError(
      "SL305",
      `the manifest of ${label} has version ${manifest.version}, newer than this sqlload writes (${MANIFEST_VERSION})`,
      {
        table: label,
        hint: "Upgrade sqlload.",
      },
    );
  }
  return manifest;
}

/** Statistics of a column's values in a file, as a cursor kind; undefined when not recorded. */
export function statsRange(
  file: ManifestFile,
  column: string,
  kind: CursorKind,
): { min: CursorValue | null; max: CursorValue | null; nulls: number } | undefined {
  if (!file.columns.includes(column)) return { min: null, max: null, nulls: file.rows };
  const s = file.stats[column];
  if (!s) return undefined;
  return {
    min: s.min === null ? null : parseCursor(kind, s.min, "manifest statistic"),
    max: s.max === null ? null : parseCursor(kind, s.max, "manifest statistic"),
    nulls: s.nulls,
  };
}

/** Text statistics longer than this are not kept (a scan answers instead): manifests stay small. */
export const MAX_TEXT_STAT = 256;

/** The columns whose statistics a file records: those that can be cursors. */
export function statColumns(columns: readonly Column[]): { name: string; kind: CursorKind }[] {
  const out: { name: string; kind: CursorKind }[] = [];
  for (const c of columns) {
    const kind = cursorKindOf(c.type);
    if (kind) out.push({ name: c.name, kind });
  }
  return out;
}
