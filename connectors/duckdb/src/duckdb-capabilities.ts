import { defaultTargetCapabilities, type TargetCapabilities } from "@sqlload/core";

/**
 * What a DuckDB target's connection declares; the connector declares the same before connecting.
 * Commit units run DuckDB file scans (a files source's Parquet and CSV) themselves unless the
 * target sets `native_file_reads = false`.
 */
export function duckdbTargetCapabilities(nativeFileReads: boolean): TargetCapabilities {
  return {
    ...defaultTargetCapabilities,
    commitModel: "transactional",
    codePointText: true,
    locking: false,
    commitGuard: true,
    resumableReload: true,
    fileScanEngines: nativeFileReads ? ["duckdb"] : [],
  };
}
