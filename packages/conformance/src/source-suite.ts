import {
  BATCH_BYTES,
  batchToRows,
  type Column,
  type CursorValue,
  compareCursor,
  cursorAt,
  formatCount,
  formatCursor,
  formatLogicalType,
  keepInRange,
  maxRow,
  type ReadRequest,
  type RecordBatch,
  type SourceConnection,
  type SourceItem,
  type SourceTableInfo,
  type SourceTableReader,
  type SourceTableRef,
  type SourceTableRequest,
  sourceCapabilityProblems,
} from "@sqlload/core";
import { afterAll, describe, expect } from "vitest";
import { type Capability, checkSkips, type Skips } from "./capabilities.js";
import { type CursorDataset, cursorDatasets, firstAtOrAfterCases, maxCases, rangeCases } from "./cases/cursor-cases.js";
import { identifierCases } from "./cases/identifier-cases.js";
import { typeCaseNeeds, typeCases, typeCaseValues } from "./cases/type-cases.js";
import type { InputRow, SourceFixture, SourceHarness } from "./harness.js";
import { canonicalKey } from "./normalize.js";
import { newReport } from "./report.js";
import { col, defineCase, type NotApplicable, normalizeMultiset, normalizeRows } from "./suite-kit.js";

/** Rows in the ordered-read case: more than one batch of any source we know, so commit points occur. */
export const ORDERED_ROWS = 70_000;

interface OpenedTable {
  readonly ref: SourceTableRef;
  readonly source: SourceConnection;
  readonly info: SourceTableInfo;
  readonly reader: SourceTableReader;
  readonly request: SourceTableRequest;
}

interface ReadResult {
  readonly items: SourceItem[];
  /** Every row read, in order, as `batchToRows` gives it; outside-range rows dropped when the source is not exact. */
  readonly rows: Record<string, unknown>[];
}

class SourceCase {
  private source: SourceConnection | undefined;

  constructor(
    readonly fixture: SourceFixture,
    readonly skips: Skips | undefined,
  ) {}

  async open(): Promise<SourceConnection> {
    this.source ??= await this.fixture.openSource();
    return this.source;
  }

  async close(): Promise<void> {
    await this.source?.close().catch(() => {});
  }

  /** A request for `table`, with the table options the harness gives it. */
  request(table: SourceTableRef, cursorColumn?: string): SourceTableRequest {
    return { table, cursorColumn, options: this.fixture.tableOptions?.(table) ?? {} };
  }

  /** Creates the table, opens the source and the table for reading, as the runner does. */
  async openTable(
    name: string,
    columns: readonly Column[],
    rows: readonly InputRow[],
    cursorColumn?: string,
  ): Promise<OpenedTable> {
    const ref = await this.fixture.createTable(name, columns, rows);
    const source = await this.open();
    const request = this.request(ref, cursorColumn);
    const info = await source.describeTable(request);
    const reader = await source.openTable(request, info);
    return { ref, source, info, reader, request };
  }

  async openDataset(dataset: CursorDataset, name = "t"): Promise<OpenedTable> {
    return this.openTable(
      name,
      [col("id", "int32"), col("c", dataset.type)],
      dataset.values.map((c, id) => ({ id, c })),
      "c",
    );
  }

  /**
   * Reads everything a request yields. A source without `exactRange` may yield rows outside the
   * range; the engine drops them with `keepInRange`, and so does this (on `cursorColumn`).
   */
  async read(table: OpenedTable, request: Partial<ReadRequest>, cursorColumn?: string): Promise<ReadResult> {
    const full = readRequest(request);
    const items: SourceItem[] = [];
    const rows: Record<string, unknown>[] = [];
    for await (const item of table.reader.read(full)) {
      items.push(item);
      if (item.kind !== "batch") continue;
      expectMaxesOfValues(item.batch);
      let batch: RecordBatch = item.batch;
      const index = cursorColumn ? batch.schema.findIndex((c) => c.name === cursorColumn) : -1;
      if (index >= 0 && !table.source.capabilities.exactRange)
        batch = keepInRange(batch, index, full.range, full.includeNulls).batch;
      rows.push(...batchToRows(batch));
    }
    return { items, rows };
  }
}

/** A column's `max`, where its source gives one, is the largest of its values (what the engine records as the data's cursor). */
function expectMaxesOfValues(batch: RecordBatch): void {
  batch.columns.forEach((column, c) => {
    if (!column.max) return;
    const type = batch.schema[c] as Column;
    const row = maxRow(column.values, column.nulls, batch.length, type.type.kind === "text");
    expect(column.max(), `the max of column ${type.name}`).toEqual(row < 0 ? null : column.values[row]);
  });
}

/** A read of everything (NULL cursors included, any order), with what `request` sets instead. */
function readRequest(request: Partial<ReadRequest> = {}): ReadRequest {
  return { range: {}, includeNulls: true, ordered: false, signal: new AbortController().signal, ...request };
}

/**
 * Registers the source conformance suite: every case creates tables through `harness`, opens
 * the source and reads as core's runner does, and compares what comes out with the case tables.
 */
export function describeSourceConformance(name: string, harness: SourceHarness): void {
  checkSkips(`describeSourceConformance("${name}")`, harness.skips);
  const report = newReport(`${name} source`);

  const test = (
    title: string,
    needs: readonly Capability[],
    body: (s: SourceCase, notApplicable: NotApplicable) => Promise<void>,
  ) =>
    defineCase(report, harness.skips, title, needs, async (notApplicable) => {
      const fixture = await harness.connect();
      const s = new SourceCase(fixture, harness.skips);
      try {
        await body(s, notApplicable);
      } finally {
        await s.close();
        await fixture.cleanup();
      }
    });

  describe(`${name}: source conformance`, () => {
    afterAll(() => {
      console.log(report.format());
    });

    describe("describeTable", () => {
      const columns = [
        col("id", "int32"),
        col("i16", "int16"),
        col("i64", "int64"),
        col("d", "date"),
        col("ts", "timestamp"),
        col("tz", "timestamptz"),
        col("txt", "text"),
        col("f", "float64"),
      ];
      const kinds = { id: "integer", i16: "integer", i64: "integer", d: "date", ts: "timestamp", tz: "timestamp", txt: "text" };

      test("reports the columns, their types, and each cursor column's kind", [], async (s) => {
        const ref = await s.fixture.createTable("t", columns, [
          { id: 1, i16: 1, i64: 1n, d: "2024-02-29", ts: 0n, tz: 0n, txt: "a", f: 0.5 },
        ]);
        const source = await s.open();
        for (const [column, kind] of Object.entries(kinds)) {
          const info = await source.describeTable(s.request(ref, column));
          expect(info.columns?.map((c) => [c.name, formatLogicalType(c.type)])).toEqual(
            columns.map((c) => [c.name, formatLogicalType(c.type)]),
          );
          expect([column, info.cursorKind]).toEqual([column, kind]);
        }
      });

      test("a table that does not exist fails with SL206", [], async (s) => {
        const ref = await s.fixture.createTable("t", columns.slice(0, 1), []);
        const source = await s.open();
        const missing = { ...ref, name: "no_such_table", key: "no_such_table" };
        await expect(source.describeTable(s.request(missing))).rejects.toMatchObject({ code: "SL206" });
      });
    });

    describe("reads filtered by range at exact boundaries (engine-filtered when not exactRange)", () => {
      for (const c of rangeCases) {
        const dataset = cursorDatasets[c.dataset];
        test(
          `${dataset.kind} ${c.title}${c.includeNulls ? ", includeNulls" : ""}`,
          [`type.${dataset.type.kind}` as Capability],
          async (s) => {
            const table = await s.openDataset(dataset);
            const { rows } = await s.read(table, { range: c.range, includeNulls: c.includeNulls }, "c");
            expect(
              normalizeMultiset(
                dataset.type,
                rows.map((r) => r.c),
              ),
            ).toEqual(normalizeMultiset(dataset.type, c.inside));
          },
        );
      }
    });

    describe("ordered reads: code point order, NULLs first, commit points between distinct values", () => {
      for (const dataset of Object.values(cursorDatasets)) {
        test(`${dataset.kind} in cursor order`, [`type.${dataset.type.kind}` as Capability], async (s, notApplicable) => {
          const table = await s.openDataset(dataset);
          if (!table.source.capabilities.orderedReads) return notApplicable("capabilities.orderedReads is false");
          const { items } = await s.read(table, { ordered: true, includeNulls: true }, "c");
          const cursors = cursorsOf(items, "c");
          expect(cursors).toHaveLength(dataset.values.length);
          expect(cursors.map(show)).toEqual([...cursors].sort(compareNullsFirst).map(show));
        });
      }

      test(
        "a source that reckons a table's size gives every batch of an unordered read its bytes",
        [],
        async (s, notApplicable) => {
          const table = await s.openDataset(cursorDatasets.integer);
          const reckoned = table.info.fullReadBytes;
          if (reckoned === undefined) return notApplicable("describeTable gives no fullReadBytes");
          expect(Number.isFinite(reckoned) && reckoned >= 0).toBe(true);
          const { items } = await s.read(table, { ordered: false, includeNulls: true }, "c");
          const batches = items.filter((i) => i.kind === "batch");
          expect(batches.length).toBeGreaterThan(0);
          // Core rolls a read back on these counts, so a batch of rows never weighs nothing.
          for (const item of batches) {
            expect(typeof item.bytes).toBe("number");
            expect(Number.isFinite(item.bytes)).toBe(true);
            if (item.batch.length > 0) expect(item.bytes).toBeGreaterThan(0);
          }
        },
      );

      test(
        "a source that reckons a table's size cleans up a read stopped early: the table opens again and reads whole",
        [],
        async (s, notApplicable) => {
          const table = await s.openDataset(cursorDatasets.integer);
          if (table.info.fullReadBytes === undefined) return notApplicable("describeTable gives no fullReadBytes");
          // What core does when an unordered read passes a commit's bytes: stop it, close, open again.
          const signal = new AbortController().signal;
          const iterator = table.reader.read({ range: {}, includeNulls: true, ordered: false, signal })[Symbol.asyncIterator]();
          expect((await iterator.next()).done).toBe(false);
          await iterator.return?.();
          await table.reader.close();
          const reader = await table.source.openTable(table.request, table.info);
          try {
            const ordered = table.source.capabilities.orderedReads;
            const { rows } = await s.read({ ...table, reader }, { ordered, includeNulls: true }, "c");
            expect(rows).toHaveLength(cursorDatasets.integer.values.length);
          } finally {
            await reader.close();
          }
        },
      );

      // Not through `test`: a tiny table first tells whether the source reads in order at all, so a
      // source that does not never builds the large one.
      defineCase(
        report,
        harness.skips,
        `${formatCount(ORDERED_ROWS)} rows in runs of ties: no commit point splits a cursor value`,
        [],
        async (notApplicable) => {
          const probe = new SourceCase(await harness.connect(), harness.skips);
          let ordered: boolean;
          try {
            ordered = (await probe.openTable("probe", [col("c", "int64")], [{ c: 1n }], "c")).source.capabilities.orderedReads;
          } finally {
            await probe.close();
            await probe.fixture.cleanup();
          }
          if (!ordered) return notApplicable("capabilities.orderedReads is false");
          const s = new SourceCase(await harness.connect(), harness.skips);
          try {
            const columns = [col("id", "int32"), col("c", "int64"), col("pad", "text")];
            // Ten cursor values, 7,000 rows each, written out of order, so a batch boundary lands inside a run.
            const rows = Array.from({ length: ORDERED_ROWS }, (_, i) => {
              const id = (i * 7919) % ORDERED_ROWS;
              return { id, c: BigInt(Math.floor(id / 7_000)), pad: "x".repeat(16) };
            });
            const table = await s.openTable("t", columns, rows, "c");
            const { items } = await s.read(table, { ordered: true, includeNulls: false }, "c");
            const cursors = cursorsOf(items, "c");
            expect(cursors).toHaveLength(ORDERED_ROWS);
            let last: CursorValue | null | undefined;
            let pendingPoint = false;
            let splits = 0;
            for (const item of items) {
              if (item.kind === "commit-point") pendingPoint = true;
              if (item.kind !== "batch" || item.batch.length === 0) continue;
              const index = item.batch.schema.findIndex((c) => c.name === "c");
              const first = cursorAt(item.batch, index, 0);
              if (pendingPoint && last !== undefined && last !== null && first !== null && compareCursor(last, first) === 0)
                splits++;
              for (let i = 1; i < item.batch.length; i++) {
                const a = cursorAt(item.batch, index, i - 1)!;
                const b = cursorAt(item.batch, index, i)!;
                expect(compareCursor(a, b)).toBeLessThanOrEqual(0);
              }
              last = cursorAt(item.batch, index, item.batch.length - 1);
              pendingPoint = false;
            }
            expect(splits).toBe(0);
          } finally {
            await s.close();
            await s.fixture.cleanup();
          }
        },
      );
    });

    describe("maxCursor (optional)", () => {
      for (const c of maxCases) {
        test(c.title, [`type.${c.type.kind}` as Capability], async (s, notApplicable) => {
          const table = await s.openTable(
            "t",
            [col("c", c.type)],
            c.values.map((v) => ({ c: v })),
            "c",
          );
          if (!table.reader.maxCursor) return notApplicable("the reader has no maxCursor");
          expect(await table.reader.maxCursor()).toEqual(c.max);
        });
      }
    });

    describe("capabilities", () => {
      test("declare firstCursorLookup exactly when opened tables have firstCursorAtOrAfter", [], async (s) => {
        const table = await s.openDataset(cursorDatasets.integer);
        expect(sourceCapabilityProblems(table.source.capabilities, table.reader)).toEqual([]);
      });
    });

    describe("firstCursorAtOrAfter (optional)", () => {
      for (const c of firstAtOrAfterCases) {
        const dataset = cursorDatasets[c.dataset];
        test(c.title, [`type.${dataset.type.kind}` as Capability], async (s, notApplicable) => {
          const table = await s.openDataset(dataset);
          if (!table.source.capabilities.firstCursorLookup || !table.reader.firstCursorAtOrAfter)
            return notApplicable("capabilities.firstCursorLookup is false");
          expect(await table.reader.firstCursorAtOrAfter(c.probe)).toEqual(c.first);
        });
      }
    });

    describe("snapshot", () => {
      test("every read of an opened table sees the rows it saw first", [], async (s, notApplicable) => {
        const dataset = cursorDatasets.integer;
        const table = await s.openDataset(dataset);
        if (!table.source.capabilities.snapshot) return notApplicable("capabilities.snapshot is false");
        if (!s.fixture.insertRows) return notApplicable("the harness has no insertRows");
        const before = await s.read(table, {}, "c");
        const max = await table.reader.maxCursor?.();
        await s.fixture.insertRows(
          table.ref,
          [col("id", "int32"), col("c", dataset.type)],
          [
            { id: 100, c: 2n ** 62n },
            { id: 101, c: 3n },
          ],
        );
        const after = await s.read(table, {}, "c");
        expect(normalizeRows(after.rows, [col("id", "int32")])).toEqual(normalizeRows(before.rows, [col("id", "int32")]));
        if (table.reader.maxCursor) expect(await table.reader.maxCursor()).toEqual(max);
        if (table.reader.firstCursorAtOrAfter)
          expect(await table.reader.firstCursorAtOrAfter({ kind: "integer", value: 2n ** 61n })).toBeNull();
      });
    });

    describe("batches", () => {
      test("hold at most BATCH_BYTES of values, and one row past them, whatever the rows' width", ["type.text"], async (s) => {
        // Narrow rows and NULLs first, then wide ones: a source that sizes its batches from the rows
        // it has seen must still cut at the wide row that reaches the bound. 3.5 times the bound of
        // wide rows, so that a harness that splits a table into parts still has parts above it.
        const width = 64 * 1024;
        const narrow = 1000;
        const wide = Math.ceil((3.5 * BATCH_BYTES) / width);
        const rows = Array.from({ length: narrow + wide }, (_, id) => ({
          id: BigInt(id),
          body: id >= narrow ? String(id).padEnd(width, "x") : id % 3 === 0 ? null : `n${id}`,
        }));
        const table = await s.openTable("wide", [col("id", "int64"), col("body", "text")], rows);
        const sizes: number[] = [];
        let read = 0;
        for await (const item of table.reader.read(readRequest())) {
          if (item.kind !== "batch") continue;
          // Measured now: a batch's columns may be reused once the next item is asked for.
          const body = item.batch.columns[item.batch.schema.findIndex((c) => c.name === "body")];
          let bytes = 0;
          for (const value of body?.values ?? []) bytes += typeof value === "string" ? value.length : 0;
          sizes.push(bytes);
          read += item.batch.length;
        }
        expect(read).toBe(rows.length);
        expect(Math.max(...sizes)).toBeLessThan(BATCH_BYTES + width);
      });
    });

    describe("every logical type round-trips", () => {
      for (const c of typeCases) {
        const { values, left } = typeCaseValues(c, harness.skips);
        for (const l of left) {
          report.add({
            case: `${c.title}: the value ${String(l.value)}`,
            status: "skipped",
            reason: `${l.capability}: ${l.reason}`,
            scope: "value",
          });
        }
        test(c.title, typeCaseNeeds(c), async (s) => {
          const columns = [col("id", "int32"), col("v", c.type)];
          const rows = [...values, null].map((v, id) => ({ id, v }));
          const table = await s.openTable("t", columns, rows);
          expect(table.info.columns?.map((e) => [e.name, formatLogicalType(e.type)])).toEqual(
            columns.map((e) => [e.name, formatLogicalType(e.type)]),
          );
          const { rows: read } = await s.read(table, {});
          expect(normalizeRows(read, columns)).toEqual(normalizeRows(rows, columns));
        });
      }
    });

    describe("identifiers with quotes, spaces, dots and Unicode", () => {
      for (const c of identifierCases) {
        test(`${c.title}: ${JSON.stringify(c.name)}`, ["oddIdentifiers"], async (s) => {
          const key = `${c.name} key`;
          const columns = [col(key, "int64"), col(c.name, "text")];
          const table = await s.openTable(
            c.name,
            columns,
            [
              { [key]: 1n, [c.name]: "a" },
              { [key]: 2n, [c.name]: "B1" },
              { [key]: 3n, [c.name]: null },
            ],
            c.name,
          );
          expect(table.info.columns?.map((e) => e.name)).toEqual([key, c.name]);
          expect(table.info.cursorKind).toBe("text");
          const { rows } = await s.read(table, { range: { from: { kind: "text", value: "B" } }, includeNulls: false }, c.name);
          expect(normalizeRows(rows, columns)).toEqual(
            normalizeRows(
              [
                { [key]: 1n, [c.name]: "a" },
                { [key]: 2n, [c.name]: "B1" },
              ],
              columns,
            ),
          );
        });
      }
    });
  });
}

/** The cursor values of every batch a read yielded, in order. */
function cursorsOf(items: readonly SourceItem[], column: string): (CursorValue | null)[] {
  const out: (CursorValue | null)[] = [];
  for (const item of items) {
    if (item.kind !== "batch") continue;
    const index = item.batch.schema.findIndex((c) => c.name === column);
    for (let i = 0; i < item.batch.length; i++) out.push(cursorAt(item.batch, index, i));
  }
  return out;
}

function compareNullsFirst(a: CursorValue | null, b: CursorValue | null): number {
  if (a === null || b === null) return (a === null ? 0 : 1) - (b === null ? 0 : 1);
  return compareCursor(a, b);
}

function show(value: CursorValue | null): string {
  return value === null ? "NULL" : `${formatCursor(value)} ${canonicalKey(value.value)}`;
}
