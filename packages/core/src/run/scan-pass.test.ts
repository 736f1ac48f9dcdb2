import { describe, expect, it } from "vitest";
import type { FileScan, FileScanRequest } from "../connector/file-scan.js";
import type { Column } from "../connector/logical-types.js";
import { batchFromRows, columnMaxCursor } from "../connector/record-batch.js";
import type { SourceTableInfo, SourceTableReader } from "../connector/source.js";
import type { TargetTableRef } from "../connector/table-ref.js";
import type { CommitUnit, CommitUnitOptions } from "../connector/target.js";
import { decodeRunLogRow } from "../state/run-log.js";
import { inCursorRange } from "./range-filter.js";
import { MemorySource, type MemorySourceOptions } from "./testing/memory-source.js";
import { MemoryTarget } from "./testing/memory-target.js";
import { runMemoryTable, TARGET_REF } from "./testing/run-memory-table.js";

// The native path through the runner, on in-memory connectors: a source whose "files" are groups
// of rows handed over as scans, and a target whose units ingest a scan by writing its rows.

type Row = { id: bigint; k: bigint | null };
const columns: Column[] = [
  { name: "id", type: { kind: "int64" }, nullable: false },
  { name: "k", type: { kind: "int64" }, nullable: true },
];
const rowsAt = (...ks: (number | null)[]): Row[] => ks.map((k, i) => ({ id: BigInt(i + 1), k: k === null ? null : BigInt(k) }));

/** Rows split into "files"; scans follow the files' order, the first `commitAfter` files each ending a group. */
class FilesLikeSource extends MemorySource {
  readonly scans: FileScanRequest[] = [];
  constructor(
    private readonly files: readonly Row[][],
    private readonly groupEnds: ReadonlySet<number>,
    options: Partial<MemorySourceOptions> = {},
  ) {
    super({ columns, rows: files.flat(), cursorColumn: "k", capabilities: { exactRange: true, orderedReads: true }, ...options });
  }

  override async describeTable(): Promise<SourceTableInfo> {
    return { ...(await super.describeTable()), fileScan: { engine: "memory", format: "parquet" } };
  }

  override async openTable(): Promise<SourceTableReader> {
    const reader = await super.openTable();
    reader.fileScans = async (request) => {
      this.scans.push(request);
      return this.files.map((file, f) => {
        const rows = file.filter((r) =>
          r.k === null ? request.includeNulls : inCursorRange({ kind: "integer", value: r.k }, request.range),
        );
        return {
          engine: "memory",
          format: "parquet",
          sql: "",
          values: { rows },
          types: {},
          settings: {},
          files: 1,
          bytes: rows.length * 100,
          commitAfter: this.groupEnds.has(f),
        };
      });
    };
    return reader;
  }
}

/** A MemoryTarget whose units ingest a memory scan as the batch of its rows. */
class ScanningTarget extends MemoryTarget {
  constructor(engines: readonly string[] = ["memory"]) {
    super({ fileScanEngines: engines });
  }

  override async begin(ref: TargetTableRef, options: CommitUnitOptions): Promise<CommitUnit> {
    const unit = await super.begin(ref, options);
    const before = this.rows(ref);
    let written: Row[] = [];
    unit.ingestFiles = async (scan: FileScan) => {
      const rows = (scan.values as { rows: Row[] }).rows;
      if (rows.length > 0) await unit.write(batchFromRows(columns, rows));
      written = [...written, ...rows];
      // The table's maximum inside the unit: what stayed outside the deleted range, and what came in.
      const all = batchFromRows(columns, [...before, ...written] as Record<string, unknown>[]);
      return { rows: rows.length, max: all.length ? columnMaxCursor(all, 1) : null };
    };
    return unit;
  }
}

const landed = (target: MemoryTarget) =>
  target
    .rows(TARGET_REF)
    .map((r) => (r.k === null ? null : Number(r.k)))
    .sort((a, b) => (a ?? -1) - (b ?? -1));
const positions = (target: MemoryTarget) =>
  target.runLog.map((row, i) => decodeRunLogRow(row, i).cursor).map((c) => (c ? String(c.value) : null));

describe("the native path (file scans)", () => {
  it("loads what the row path loads, commits after a scan that ends a group, and logs the same position", async () => {
    const files = [rowsAt(null, 1, 2), rowsAt(3, 4), rowsAt(5)];
    const native = new ScanningTarget();
    const source = new FilesLikeSource(files, new Set([0]));
    const run = await runMemoryTable(source, native, {});
    expect(run.result).toMatchObject({ status: "loaded", rows: 6 });
    expect(source.reads).toHaveLength(0);
    expect(source.scans).toEqual([{ range: {}, includeNulls: true, ordered: true }]);
    expect(run.of("window_committed").map((e) => e.rows)).toEqual([3, 3]);

    const rows = new MemoryTarget();
    await runMemoryTable(
      new MemorySource({ columns, rows: files.flat(), cursorColumn: "k", capabilities: { exactRange: true } }),
      rows,
      {},
    );
    expect(landed(native)).toEqual(landed(rows));
    expect(positions(native).at(-1)).toBe("5");

    // The next run replaces from the maximum, as delete_insert does on the row path.
    const next = new FilesLikeSource([...files, rowsAt(5, 6)], new Set());
    const again = await runMemoryTable(next, native, {});
    expect(next.scans[0]?.range.from).toEqual({ kind: "integer", value: 5n });
    expect(again.result).toMatchObject({ rows: 3 });
    expect(landed(native)).toEqual([null, 1, 2, 3, 4, 5, 5, 6]);
    expect(positions(native).at(-1)).toBe("6");
  });

  it("commits between scans once about chunkBytes of files were read, and not after the last", async () => {
    // Scans of 300, 200, 100 and 100 bytes; no group ends by the file rule.
    const files = [rowsAt(1, 2, 3), rowsAt(4, 5), rowsAt(6), rowsAt(7)];
    const target = new ScanningTarget();
    const run = await runMemoryTable(new FilesLikeSource(files, new Set()), target, {}, { chunkBytes: 400 });
    expect(run.result).toMatchObject({ status: "loaded", rows: 7 });
    expect(run.of("window_committed").map((e) => e.rows)).toEqual([5, 2]);
    expect(landed(target)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(positions(target)).toEqual(["5", "7"]);
  });

  it("plan says which path; merge, a target without the engine and an inexact source read rows", async () => {
    const files = [rowsAt(1, 2)];
    const cases = [
      {
        target: new ScanningTarget(),
        settings: {},
        native: true,
        note: "read: the target reads the parquet files itself (native path)",
      },
      {
        target: new ScanningTarget(),
        settings: { writeStrategy: "merge" as const, primaryKey: ["id"] },
        native: false,
        note: "read: rows through sqlload (merge checks primary keys in every batch)",
      },
      {
        target: new ScanningTarget(["duckdb"]),
        settings: {},
        native: false,
        note: "read: rows through sqlload (the target cannot read these files)",
      },
    ];
    for (const c of cases) {
      const source = new FilesLikeSource(files, new Set());
      const run = await runMemoryTable(source, c.target, c.settings);
      expect(run.result.status).toBe("loaded");
      expect(run.of("table_started")[0]?.plan.notes).toContain(c.note);
      expect({ note: c.note, scans: source.scans.length > 0, reads: source.reads.length > 0 }).toEqual({
        note: c.note,
        scans: c.native,
        reads: !c.native,
      });
      expect(landed(c.target)).toEqual([1, 2]);
    }
    const inexact = new FilesLikeSource(files, new Set(), { capabilities: { exactRange: false } });
    const run = await runMemoryTable(inexact, new ScanningTarget(), {});
    expect(run.of("table_started")[0]?.plan.notes).toContain(
      "read: rows through sqlload (the source does not filter its range itself)",
    );
    expect(inexact.scans).toHaveLength(0);
  });
});
