import { RUN_LOG_FORMAT_VERSION, type RunLogRow, type TargetTableRef } from "@sqlload/core";
import { type Manifest, RUNS_DIR, tableDir } from "./files-manifest.js";
import type { FileStore } from "./files-store.js";

/**
 * The run log of a files-target table: one JSON object per record under
 * `<table folder>/_sqlload/runs/`, named by its sequence number padded to 20 digits so names sort
 * in order. A commit writes its records before renaming the manifest, which then counts them
 * (`runLog.last`): records past that count were left by a commit that never happened and are
 * neither read nor kept.
 */
export function runLogPath(ref: TargetTableRef, seq: number): string {
  return `${tableDir(ref)}/${RUNS_DIR}/${String(seq).padStart(20, "0")}.json`;
}

/** The sequence number of a run-log file name, or undefined for anything else. */
export function runLogSeq(name: string): number | undefined {
  const m = /^(\d{20})\.json$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

export async function writeRunLogRecord(store: FileStore, ref: TargetTableRef, seq: number, row: RunLogRow): Promise<string> {
  const path = runLogPath(ref, seq);
  const record = { seq, runId: row.runId, table: row.table, at: row.at, formatVersion: row.formatVersion, body: row.body };
  // Overwrites a record a crashed commit may have left under this number.
  await store.write(path, `${JSON.stringify(record)}\n`);
  return path;
}

/**
 * The committed records in order; with `last`, only the newest `last` objects are read. One that
 * does not parse comes back with its raw text as the body, so core's decoder reports it (SL500)
 * and blocks only this table.
 */
export async function readRunLogRecords(
  store: FileStore,
  ref: TargetTableRef,
  manifest: Manifest | null,
  last?: number,
): Promise<RunLogRow[]> {
  if (!manifest) return [];
  const dir = `${tableDir(ref)}/${RUNS_DIR}`;
  const files = (await store.list(dir))
    .map((f) => ({ path: f.path, seq: runLogSeq(f.path.slice(f.path.lastIndexOf("/") + 1)) }))
    .filter((f): f is { path: string; seq: number } => f.seq !== undefined && f.seq <= manifest.runLog.last)
    .sort((a, b) => a.seq - b.seq);
  const rows: RunLogRow[] = [];
  for (const file of last === undefined ? files : files.slice(-last)) {
    const bytes = await store.read(file.path);
    if (!bytes) {
      // Gone since the listing: newest records fewer than asked for would pass for the whole log.
      if (last !== undefined) return readRunLogRecords(store, ref, manifest);
      continue;
    }
    const text = Buffer.from(bytes).toString("utf8");
    try {
      const record = JSON.parse(text) as Record<string, unknown>;
      if (typeof record.body !== "string" || typeof record.formatVersion !== "number") throw new Error("not a run-log record");
      rows.push({
        runId: String(record.runId),
        table: String(record.table),
        at: String(record.at),
        formatVersion: record.formatVersion,
        body: record.body,
      });
    } catch {
      rows.push({ runId: "?", table: manifest.table, at: file.path, formatVersion: RUN_LOG_FORMAT_VERSION, body: text });
    }
  }
  return rows;
}
