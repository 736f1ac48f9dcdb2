import type { TargetTableRef } from "@sqlload/core";
import { MANIFEST_TMP, type Manifest, RUNS_DIR, tableDir } from "./files-manifest.js";
import { runLogSeq } from "./files-run-log.js";
import type { FileStore } from "./files-store.js";

/** The names data files get: anything else in the folder is not sqlload's to remove. */
export const DATA_FILE = /^part-[0-9a-z-]+\.parquet$/;

/**
 * Removes what the manifest does not name: data files of commits that never happened (a crash
 * between writing them and the manifest rename) or that later commits replaced, an unfinished
 * `manifest.json.tmp`, and run-log records past the manifest's count. Runs while the table's
 * lease is held, so no other run is writing files that its manifest will name. Files replaced by
 * a commit are only removed by the next run: a reader that read the previous manifest can still
 * finish. Returns the paths removed.
 */
export async function collectGarbage(store: FileStore, ref: TargetTableRef, manifest: Manifest | null): Promise<string[]> {
  const dir = tableDir(ref);
  const named = new Set((manifest?.files ?? []).map((f) => `${dir}/${f.path}`));
  const last = manifest?.runLog.last ?? 0;
  const removed: string[] = [];
  for (const file of await store.list(dir)) {
    const name = file.path.slice(file.path.lastIndexOf("/") + 1);
    const inRuns = file.path.startsWith(`${dir}/${RUNS_DIR}/`);
    let garbage = false;
    if (file.path === `${dir}/${MANIFEST_TMP}`) garbage = true;
    else if (inRuns) {
      const seq = runLogSeq(name);
      garbage = seq !== undefined && seq > last;
    } else if (DATA_FILE.test(name)) garbage = !named.has(file.path);
    if (garbage) {
      await store.delete(file.path);
      removed.push(file.path);
    }
  }
  if (removed.length > 0) await store.prune(dir);
  return removed;
}
