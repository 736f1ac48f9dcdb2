import {
  batchFromRows,
  type Column,
  type CommitUnit,
  type CommitUnitOptions,
  type CursorKind,
  type CursorValue,
  encodeRunLogRecord,
  formatLogicalType,
  formatTargetTable,
  integerCursor,
  isSqlloadError,
  type LogicalType,
  parseDateDays,
  parseTimestampMicros,
  type RunLogRow,
  type TargetConnection,
  type TargetTableRef,
  targetCapabilityProblems,
  type WriteStrategy,
} from "@sqlload/core";
import { afterAll, describe, expect } from "vitest";
import { type Capability, checkSkips, type Skips } from "./capabilities.js";
import { cursorDatasets, maxCases, rangeCases } from "./cases/cursor-cases.js";
import { identifierCases, oddSchemaSuffix } from "./cases/identifier-cases.js";
import { typeCaseNeeds, typeCases, typeCaseValues } from "./cases/type-cases.js";
import { expiringBatch } from "./expiring-batch.js";
import type { InputRow, TargetFixture, TargetHarness } from "./harness.js";
import { canonicalKey } from "./normalize.js";
import { newReport } from "./report.js";
import { col, defineCase, type NotApplicable, normalizeMultiset, normalizeRows, without } from "./suite-kit.js";
import { withUtf8 } from "./utf8-batch.js";

/** A zone far from UTC with a 45-minute offset and DST, so a local-time slip shows in any month. */
const FAR_ZONE = "Pacific/Chatham";

/**
 * One test's view of the target: the fixture plus the moves the runner makes (ensure, begin,
 * write, commit and, for staged targets, publish).
 */
class TargetCase {
  constructor(
    readonly fixture: TargetFixture,
    readonly skips: Skips | undefined,
  ) {}

  get target(): TargetConnection {
    return this.fixture.target;
  }

  get staged(): boolean {
    return this.target.capabilities.commitModel === "staged";
  }

  ref(name = "t", schema = this.fixture.schema): TargetTableRef {
    return { schema, name };
  }

  begin(ref: TargetTableRef, columns: readonly Column[], options: Partial<CommitUnitOptions> = {}): Promise<CommitUnit> {
    return this.target.begin(ref, { strategy: "append", columns, ...options });
  }

  /** Commits a unit and, on a staged target, publishes it, as the runner does. */
  async commit(ref: TargetTableRef, unit: CommitUnit): Promise<void> {
    await unit.commit();
    if (this.staged) await this.target.publish!(ref);
  }

  /** ensureTable, then one unit writing `rows` (and `log` records), committed. */
  async load(
    ref: TargetTableRef,
    columns: readonly Column[],
    rows: readonly InputRow[],
    options: Partial<CommitUnitOptions> & { log?: readonly RunLogRow[] } = {},
  ): Promise<readonly Column[]> {
    // Strategy and cursor too, as the runner tells them: some engines choose a table layout by them.
    const ensureOptions = { primaryKey: options.primaryKey, strategy: options.strategy ?? "append", cursor: options.cursor };
    const ensured = await this.target.ensureTable(ref, columns, ensureOptions);
    const unit = await this.begin(ref, ensured, options);
    try {
      if (rows.length > 0) await unit.write(batchFromRows(columns, rows));
      for (const record of options.log ?? []) await unit.appendRunLog(record);
      await this.commit(ref, unit);
    } catch (error) {
      await unit.abort().catch(() => {});
      throw error;
    }
    return ensured;
  }

  /** The table's rows as a reader outside the connector sees them, normalized for `columns`; null when absent. */
  async rows(ref: TargetTableRef, columns: readonly Column[]): Promise<Record<string, unknown>[] | null> {
    const rows = await this.fixture.readAll(ref);
    return rows && normalizeRows(rows, columns);
  }

  /** One column's values as a sorted multiset. */
  async values(ref: TargetTableRef, column: string, type: LogicalType): Promise<unknown[]> {
    const rows = (await this.fixture.readAll(ref)) ?? [];
    return normalizeMultiset(
      type,
      rows.map((r) => r[column]),
    );
  }
}

let logSequence = 0;

/** A run-log row like core writes, with a body that carries quotes, Unicode and a long note. */
function logRow(ref: TargetTableRef, note: string, formatVersion = 1): RunLogRow {
  const row = encodeRunLogRecord({
    runId: `run-${++logSequence}-ü "q" 'q'`,
    table: formatTargetTable(ref),
    at: `2026-10-12T16:00:${String(logSequence % 60).padStart(2, "0")}.123Z`,
    event: "run",
    state: { token: `tok\u{1f600}${logSequence}`, n: logSequence },
    cursor: integerCursor(2n ** 53n + BigInt(logSequence)),
    windowEnd: null,
    rows: logSequence,
    note,
  });
  return formatVersion === row.formatVersion ? row : { ...row, formatVersion };
}

/**
 * Registers the target conformance suite: every case opens a fresh fixture from `harness`,
 * drives the connection the way core's runner does, and checks the result through
 * `fixture.readAll` (the engine's own view), `readRunLog`, `describeTable` and `maxCursor`.
 */
export function describeTargetConformance(name: string, harness: TargetHarness): void {
  checkSkips(`describeTargetConformance("${name}")`, harness.skips);
  const report = newReport(`${name} target`);

  const test = (
    title: string,
    needs: readonly Capability[],
    body: (t: TargetCase, notApplicable: NotApplicable) => Promise<void>,
  ) =>
    defineCase(report, harness.skips, title, needs, async (notApplicable) => {
      const fixture = await harness.connect();
      try {
        await body(new TargetCase(fixture, harness.skips), notApplicable);
      } finally {
        await fixture.target.close().catch(() => {});
        await fixture.cleanup();
      }
    });

  describe(`${name}: target conformance`, () => {
    afterAll(() => {
      console.log(report.format());
    });

    describe("maxCursor", () => {
      for (const c of maxCases) {
        test(c.title, [`type.${c.type.kind}` as Capability], async (t) => {
          const ref = t.ref();
          await t.load(
            ref,
            [col("c", c.type)],
            c.values.map((v) => ({ c: v })),
          );
          expect(await t.target.maxCursor(ref, "c", c.kind)).toEqual(c.max);
          // The run log's last cursor, passed as a hint: at the data's maximum, or above it (rows
          // deleted by hand since), the answer is still the data's maximum.
          if (c.max) {
            for (const atOrAbove of [c.max, justAbove(c.max)].filter((v) => v !== undefined))
              expect(await t.target.maxCursor(ref, "c", c.kind, { atOrAbove })).toEqual(c.max);
          }
        });
      }

      test("is null for a table that does not exist", [], async (t) => {
        expect(await t.target.maxCursor(t.ref("absent"), "c", "integer")).toBeNull();
      });

      test("sees only committed rows", [], async (t) => {
        const ref = t.ref();
        const columns = [col("c", "int64")];
        await t.load(ref, columns, [{ c: 1n }]);
        const unit = await t.begin(ref, columns);
        await unit.write(batchFromRows(columns, [{ c: 99n }]));
        expect(await t.target.maxCursor(ref, "c", "integer")).toEqual(integerCursor(1));
        await unit.abort();
        expect(await t.target.maxCursor(ref, "c", "integer")).toEqual(integerCursor(1));
      });
    });

    describe("deleteRange: half-open ranges at exact boundaries", () => {
      for (const c of rangeCases) {
        const dataset = cursorDatasets[c.dataset];
        const title = `${dataset.kind} ${c.title}`;
        test(title, [`type.${dataset.type.kind}` as Capability], async (t) => {
          const ref = t.ref();
          const columns = [col("id", "int32"), col("c", dataset.type)];
          const rows = dataset.values.map((c, id) => ({ id, c }));
          await t.load(ref, columns, rows);
          const unit = await t.begin(ref, columns, { strategy: "delete_insert", cursor: { column: "c", kind: dataset.kind } });
          await unit.deleteRange(c.range, { includeNulls: c.includeNulls });
          await t.commit(ref, unit);
          const key = (v: unknown) => canonicalKey(v);
          const expected = without(
            normalizeMultiset(dataset.type, dataset.values),
            normalizeMultiset(dataset.type, c.inside),
            key,
          );
          expect(await t.values(ref, "c", dataset.type)).toEqual(expected);
        });
      }
    });

    describe("merge on keys", () => {
      const columns = [col("id", "int64"), col("name", "text"), col("n", "int32")];

      test("upserts on a single key", ["merge"], async (t) => {
        const ref = t.ref();
        await t.load(ref, columns, [
          { id: 1n, name: "a", n: 1 },
          { id: 2n, name: "b", n: 1 },
        ]);
        await t.load(
          ref,
          columns,
          [
            { id: 2n, name: "B", n: 2 },
            { id: 3n, name: "c", n: 2 },
          ],
          { strategy: "merge", primaryKey: ["id"] },
        );
        expect(await t.rows(ref, columns)).toEqual(
          normalizeRows(
            [
              { id: 1n, name: "a", n: 1 },
              { id: 2n, name: "B", n: 2 },
              { id: 3n, name: "c", n: 2 },
            ],
            columns,
          ),
        );
      });

      test("upserts on a composite key whose parts differ only by case or Unicode normalization", ["merge"], async (t) => {
        const ref = t.ref();
        const keyed = [col("k", "text"), col("part", "int64"), col("v", "text")];
        const before = [
          { k: "a", part: 2n ** 53n + 1n, v: "old a" },
          { k: "A", part: 2n ** 53n + 1n, v: "old A" },
          { k: "\u00e9", part: 1n, v: "old é" },
          { k: "e\u0301", part: 1n, v: "old e+acute" },
        ];
        await t.load(ref, keyed, before, { primaryKey: ["k", "part"] });
        await t.load(
          ref,
          keyed,
          [
            { k: "A", part: 2n ** 53n + 1n, v: "new A" },
            { k: "e\u0301", part: 1n, v: "new e+acute" },
            { k: "a", part: 2n ** 53n, v: "new a, other part" },
          ],
          { strategy: "merge", primaryKey: ["k", "part"] },
        );
        expect(await t.rows(ref, keyed)).toEqual(
          normalizeRows(
            [
              { k: "a", part: 2n ** 53n + 1n, v: "old a" },
              { k: "A", part: 2n ** 53n + 1n, v: "new A" },
              { k: "\u00e9", part: 1n, v: "old é" },
              { k: "e\u0301", part: 1n, v: "new e+acute" },
              { k: "a", part: 2n ** 53n, v: "new a, other part" },
            ],
            keyed,
          ),
        );
      });

      test("into an empty table, matching batch columns by name in any order", ["merge"], async (t) => {
        const ref = t.ref();
        await t.target.ensureTable(ref, columns, { primaryKey: ["id"] });
        const reordered = [columns[2]!, columns[0]!, columns[1]!];
        await t.load(ref, reordered, [{ n: 5, id: 7n, name: "x" }], { strategy: "merge", primaryKey: ["id"] });
        await t.load(ref, reordered, [{ n: 6, id: 7n, name: "y" }], { strategy: "merge", primaryKey: ["id"] });
        expect(await t.rows(ref, columns)).toEqual([{ id: 7n, name: "y", n: 6 }]);
      });
    });

    describe("replace", () => {
      const old = [col("id", "int32"), col("v", "text")];
      const next = [col("id", "int32"), col("v", "text"), col("added", "date")];

      test("is invisible to readers until commit, then swaps rows and columns in", ["replace"], async (t) => {
        const ref = t.ref();
        await t.load(ref, old, [
          { id: 1, v: "old" },
          { id: 2, v: "old" },
        ]);
        const record = logRow(ref, "replace");
        const unit = await t.begin(ref, next, { strategy: "replace" });
        await unit.write(batchFromRows(next, [{ id: 3, v: "new", added: "2024-02-29" }]));
        await unit.appendRunLog(record);
        expect(await t.rows(ref, old)).toEqual([
          { id: 1, v: "old" },
          { id: 2, v: "old" },
        ]);
        expect((await t.target.describeTable(ref))?.columns.map((c) => c.name)).toEqual(["id", "v"]);
        await unit.commit();
        if (t.staged) {
          expect(await t.rows(ref, old)).toEqual(
            normalizeRows(
              [
                { id: 1, v: "old" },
                { id: 2, v: "old" },
              ],
              old,
            ),
          );
          await t.target.publish!(ref);
        }
        expect(await t.rows(ref, next)).toEqual([{ id: 3, v: "new", added: parseDateDays("2024-02-29") }]);
        expect((await t.target.describeTable(ref))?.columns.map((c) => c.name)).toEqual(["id", "v", "added"]);
        expect(await t.target.readRunLog(ref)).toEqual([record]);
      });

      test("creates a table that did not exist, visible only at commit", ["replace"], async (t) => {
        const ref = t.ref();
        const unit = await t.begin(ref, old, { strategy: "replace" });
        await unit.write(batchFromRows(old, [{ id: 1, v: "x" }]));
        expect(await t.fixture.readAll(ref)).toBeNull();
        expect(await t.target.describeTable(ref)).toBeNull();
        await t.commit(ref, unit);
        expect(await t.rows(ref, old)).toEqual([{ id: 1, v: "x" }]);
      });

      test("may change a column's type (a reload rebuilds the table)", ["replace"], async (t) => {
        const ref = t.ref();
        await t.load(ref, old, [{ id: 1, v: "text" }]);
        const changed = [col("id", "int32"), col("v", "int64")];
        const unit = await t.begin(ref, changed, { strategy: "replace" });
        await unit.write(batchFromRows(changed, [{ id: 1, v: 2n ** 53n + 1n }]));
        await t.commit(ref, unit);
        expect(await t.rows(ref, changed)).toEqual([{ id: 1, v: 2n ** 53n + 1n }]);
        expect((await t.target.describeTable(ref))?.columns.find((c) => c.name === "v")?.type.kind).toBe("int64");
      });

      test("an aborted replace leaves the old table, and the next replace works", ["replace"], async (t) => {
        const ref = t.ref();
        await t.load(ref, old, [{ id: 1, v: "old" }]);
        const failed = await t.begin(ref, next, { strategy: "replace" });
        await failed.write(batchFromRows(next, [{ id: 9, v: "lost", added: "2024-01-01" }]));
        await failed.abort();
        expect(await t.rows(ref, old)).toEqual([{ id: 1, v: "old" }]);
        expect((await t.target.describeTable(ref))?.columns.map((c) => c.name)).toEqual(["id", "v"]);
        const unit = await t.begin(ref, old, { strategy: "replace" });
        await unit.write(batchFromRows(old, [{ id: 2, v: "new" }]));
        await t.commit(ref, unit);
        expect(await t.rows(ref, old)).toEqual([{ id: 2, v: "new" }]);
      });

      test("learns its columns from the first batch when begun with none", ["replace"], async (t) => {
        // A table function without declared columns: the runner begins the unit before any row is known.
        const ref = t.ref();
        await t.load(ref, old, [{ id: 1, v: "old" }]);
        const unit = await t.begin(ref, [], { strategy: "replace" });
        await unit.write(batchFromRows(next, [{ id: 2, v: "new", added: "1970-01-02" }]));
        await t.commit(ref, unit);
        expect(await t.rows(ref, next)).toEqual([{ id: 2, v: "new", added: 1 }]);
      });

      test(
        "recordWithData (targets recording a replace after its swap): rows and run-log records replace the live table's in one commit",
        ["replace"],
        async (t, notApplicable) => {
          if (!t.target.capabilities.replaceRecordAfterSwap) {
            return notApplicable("capabilities.replaceRecordAfterSwap is false: a replace's record commits with its swap");
          }
          const ref = t.ref();
          const first = logRow(ref, "before");
          await t.load(ref, old, [{ id: 1, v: "old" }], { log: [first] });
          // As core does: evolve the live table, then begin with its columns.
          const ensured = await t.target.ensureTable(ref, next, { strategy: "append" });
          const options = { strategy: "replace" as const, recordWithData: true };
          const aborted = await t.begin(ref, ensured, options);
          await aborted.write(batchFromRows(next, [{ id: 9, v: "lost", added: "2024-01-01" }]));
          await aborted.appendRunLog(logRow(ref, "never"));
          await aborted.abort();
          expect(await t.rows(ref, old)).toEqual([{ id: 1, v: "old" }]);
          expect(await t.target.readRunLog(ref)).toEqual([first]);

          const record = logRow(ref, "with the data");
          const unit = await t.begin(ref, ensured, options);
          await unit.write(batchFromRows(old, [{ id: 2, v: "new" }]));
          await unit.write(batchFromRows(next, [{ id: 3, v: "new", added: "2024-02-29" }]));
          await unit.appendRunLog(record);
          expect(await t.rows(ref, old)).toEqual([{ id: 1, v: "old" }]);
          expect(await t.target.readRunLog(ref)).toEqual([first]);
          await t.commit(ref, unit);
          expect(await t.rows(ref, next)).toEqual(
            normalizeRows(
              [
                { id: 2, v: "new", added: null },
                { id: 3, v: "new", added: "2024-02-29" },
              ],
              next,
            ),
          );
          expect(await t.target.readRunLog(ref)).toEqual([first, record]);
        },
      );

      test("with no rows written leaves an empty table", ["replace"], async (t) => {
        const ref = t.ref();
        await t.load(ref, old, [{ id: 1, v: "old" }]);
        const unit = await t.begin(ref, old, { strategy: "replace" });
        await t.commit(ref, unit);
        expect(await t.rows(ref, old)).toEqual([]);
      });
    });

    describe("commit units", () => {
      const columns = [col("id", "int32"), col("c", "int64"), col("v", "text")];
      const cursor = { column: "c", kind: "integer" as CursorKind };
      const before = [
        { id: 1, c: 1n, v: "kept" },
        { id: 2, c: 2n, v: "kept" },
      ];

      test("a delete and an insert in one unit are invisible until it lands", [], async (t) => {
        const ref = t.ref();
        await t.load(ref, columns, before);
        const unit = await t.begin(ref, columns, { strategy: "delete_insert", cursor });
        await unit.deleteRange({}, { includeNulls: true });
        await unit.write(batchFromRows(columns, [{ id: 3, c: 3n, v: "new" }]));
        await unit.appendRunLog(logRow(ref, "delete_insert"));
        expect(await t.rows(ref, columns)).toEqual(normalizeRows(before, columns));
        expect(await t.target.readRunLog(ref)).toEqual([]);
        await unit.commit();
        if (t.staged) {
          expect(await t.rows(ref, columns)).toEqual(normalizeRows(before, columns));
          await t.target.publish!(ref);
        }
        expect(await t.rows(ref, columns)).toEqual([{ id: 3, c: 3n, v: "new" }]);
        expect(await t.target.readRunLog(ref)).toHaveLength(1);
      });

      for (const strategy of ["append", "delete_insert", "merge", "replace"] as const satisfies readonly WriteStrategy[]) {
        const needs: Capability[] = strategy === "merge" || strategy === "replace" ? [strategy] : [];
        test(
          `an injected failure in a ${strategy} unit leaves nothing: no rows, deletes or run-log records`,
          needs,
          async (t) => {
            const ref = t.ref();
            const first = logRow(ref, "committed");
            await t.load(ref, columns, before, { log: [first], primaryKey: ["id"] });
            const unit = await t.begin(ref, columns, { strategy, cursor, primaryKey: ["id"] });
            try {
              if (strategy === "delete_insert") await unit.deleteRange({ from: integerCursor(1) }, { includeNulls: true });
              await unit.write(
                batchFromRows(columns, [
                  { id: 1, c: 10n, v: "changed" },
                  { id: 3, c: 3n, v: "new" },
                ]),
              );
              await unit.appendRunLog(logRow(ref, "never"));
              throw new Error("injected failure");
            } catch (error) {
              if ((error as Error).message !== "injected failure") throw error;
              await unit.abort();
            }
            if (t.staged) await t.target.publish!(ref);
            expect(await t.rows(ref, columns)).toEqual(normalizeRows(before, columns));
            expect(await t.target.readRunLog(ref)).toEqual([first]);
            expect((await t.target.describeTable(ref))?.columns.map((c) => c.name)).toEqual(["id", "c", "v"]);
            expect(await t.target.maxCursor(ref, "c", "integer")).toEqual(integerCursor(2));
            // The connection is not left in a failed transaction: the next unit lands.
            await t.load(ref, columns, [{ id: 4, c: 4n, v: "after" }]);
            expect(await t.values(ref, "id", { kind: "int32" })).toEqual([1, 2, 4]);
          },
        );
      }

      test("write matches columns by name; columns a batch lacks are NULL", [], async (t) => {
        const ref = t.ref();
        await t.target.ensureTable(ref, columns, {});
        await t.load(ref, [col("v", "text"), col("id", "int32")], [{ v: "no c", id: 1 }]);
        expect(await t.rows(ref, columns)).toEqual([{ id: 1, c: null, v: "no c" }]);
      });

      test("units of two tables begun at once both land", ["concurrentUnits"], async (t) => {
        const refs = [t.ref("first"), t.ref("second")];
        for (const ref of refs) await t.target.ensureTable(ref, columns, {});
        // Interleaved like two tables loading at once. A target may make the second unit wait for
        // the first to end (one writer at a time), but neither may fail or deadlock.
        await Promise.all(
          refs.map(async (ref, i) => {
            const unit = await t.begin(ref, columns);
            for (let k = 0; k < 3; k++) {
              await unit.write(batchFromRows(columns, [{ id: k, c: BigInt(i), v: ref.name }]));
              await new Promise((resolve) => setTimeout(resolve, 1));
            }
            await unit.appendRunLog(logRow(ref, ref.name));
            await t.commit(ref, unit);
          }),
        );
        for (const ref of refs) {
          expect(await t.values(ref, "v", { kind: "text" })).toEqual([ref.name, ref.name, ref.name]);
          expect(await t.target.readRunLog(ref)).toHaveLength(1);
        }
      });

      test("a unit on a table that does not exist yet only logs", [], async (t) => {
        // An empty window of a table whose columns only its rows can tell: the runner commits the position anyway.
        const ref = t.ref();
        const record = logRow(ref, "empty window");
        const unit = await t.begin(ref, [], { strategy: "delete_insert", cursor });
        await unit.appendRunLog(record);
        await t.commit(ref, unit);
        expect(await t.target.readRunLog(ref)).toEqual([record]);
        expect(await t.target.describeTable(ref)).toBeNull();
      });

      test("staged: committed units stay invisible until publish", [], async (t, notApplicable) => {
        if (!t.staged) return notApplicable("commitModel is transactional: a unit lands at commit");
        const ref = t.ref();
        await t.target.ensureTable(ref, columns, {});
        for (const id of [1, 2]) {
          const unit = await t.begin(ref, columns, { strategy: "delete_insert", cursor });
          await unit.write(batchFromRows(columns, [{ id, c: BigInt(id), v: "staged" }]));
          await unit.appendRunLog(logRow(ref, `staged ${id}`));
          await unit.commit();
        }
        expect(await t.rows(ref, columns)).toEqual([]);
        expect(await t.target.readRunLog(ref)).toEqual([]);
        expect(await t.target.maxCursor(ref, "c", "integer")).toBeNull();
        await t.target.publish!(ref);
        expect(await t.values(ref, "id", { kind: "int32" })).toEqual([1, 2]);
        expect(await t.target.readRunLog(ref)).toHaveLength(2);
      });

      test("transactional: commit makes rows and run-log records visible together", [], async (t, notApplicable) => {
        if (t.staged) return notApplicable("commitModel is staged: publish makes units visible");
        const ref = t.ref();
        await t.target.ensureTable(ref, columns, {});
        const unit = await t.begin(ref, columns);
        await unit.write(batchFromRows(columns, [{ id: 1, c: 1n, v: "x" }]));
        await unit.appendRunLog(logRow(ref, "together"));
        await unit.commit();
        expect(await t.values(ref, "id", { kind: "int32" })).toEqual([1]);
        expect(await t.target.readRunLog(ref)).toHaveLength(1);
      });

      for (const strategy of ["append", "delete_insert", "merge", "replace"] as const satisfies readonly WriteStrategy[]) {
        const needs: Capability[] = strategy === "merge" || strategy === "replace" ? [strategy] : [];
        for (const utf8 of [false, true])
          test(
            `a ${strategy} unit reads each batch${utf8 ? " (text as UTF-8 bytes)" : ""} only until its write settles`,
            needs,
            async (t) => {
              const ref = t.ref();
              const ensured = await t.target.ensureTable(ref, columns, { primaryKey: ["id"], strategy, cursor });
              const unit = await t.begin(ref, ensured, { strategy, cursor, primaryKey: ["id"] });
              const input = [
                [
                  { id: 1, c: 1n, v: "first" },
                  { id: 2, c: 2n, v: null },
                ],
                [{ id: 3, c: 3n, v: "second, long enough to be stored out of line" }],
              ];
              await writeExpiring(t, ref, unit, columns, input, utf8);
              expect(await t.rows(ref, columns)).toEqual(normalizeRows(input.flat(), columns));
            },
          );
      }

      test("a unit reads a batch's scaled decimals only until its write settles", ["type.decimal"], async (t) => {
        const ref = t.ref();
        const columns = [col("id", "int32"), col("amount", { kind: "decimal", precision: 12, scale: 2 })];
        const ensured = await t.target.ensureTable(ref, columns, { strategy: "append" });
        const unit = await t.begin(ref, ensured, {});
        const input = [
          [
            { id: 1, amount: "12.50" },
            { id: 2, amount: null },
          ],
          [{ id: 3, amount: "-9999999999.99" }],
        ];
        await writeExpiring(t, ref, unit, columns, input, true);
        expect(await t.rows(ref, columns)).toEqual(normalizeRows(input.flat(), columns));
      });
    });

    describe("run log", () => {
      const columns = [col("id", "int32")];

      test("records round-trip exactly and in order, with the data of their commit", [], async (t) => {
        const ref = t.ref();
        const records = [
          logRow(ref, "first"),
          logRow(ref, `second: ${"long note ".repeat(1000)}`),
          logRow(ref, "third, from a newer sqlload", 2),
        ];
        await t.load(ref, columns, [{ id: 1 }], { log: [records[0]!] });
        await t.load(ref, columns, [{ id: 2 }], { log: [records[1]!, records[2]!] });
        expect(await t.target.readRunLog(ref)).toEqual(records);
      });

      test("asked for its newest records, returns them (or the whole log), in the order written", [], async (t) => {
        const ref = t.ref();
        const other = t.ref("t2");
        const records = ["first", "second", "third", "fourth"].map((note) => logRow(ref, note));
        await t.load(ref, columns, [{ id: 1 }], { log: records.slice(0, 2) });
        await t.load(other, columns, [{ id: 1 }], { log: [logRow(other, "another table's")] });
        await t.load(ref, columns, [{ id: 2 }], { log: records.slice(2) });
        // Core relies on exactly this: the newest `last` records, or the whole log, in the order written.
        for (const last of [1, 3, 4, 10]) {
          const read = await t.target.readRunLog(ref, { last });
          const newest = records.slice(-last);
          expect(read).toEqual(harness.readsNewestRunLog || read.length !== records.length ? newest : records);
        }
      });

      test("records of other tables, and of the same name in another schema, stay apart", [], async (t) => {
        const a = t.ref("t");
        const b = t.ref("t2");
        const other = t.ref("t", `${t.fixture.schema}_2`);
        const records = [logRow(a, "a"), logRow(b, "b"), logRow(other, "other")];
        await t.load(a, columns, [{ id: 1 }], { log: [records[0]!] });
        await t.load(b, columns, [{ id: 1 }], { log: [records[1]!] });
        await t.load(other, columns, [{ id: 1 }], { log: [records[2]!] });
        expect(await t.target.readRunLog(a)).toEqual([records[0]]);
        expect(await t.target.readRunLog(b)).toEqual([records[1]]);
        expect(await t.target.readRunLog(other)).toEqual([records[2]]);
      });

      test("commitGuard: a unit reads its run's records inside its own transaction", [], async (t, notApplicable) => {
        if (!t.target.capabilities.commitGuard) return notApplicable("capabilities.commitGuard is false");
        const ref = t.ref();
        const mine = logRow(ref, "mine");
        await t.load(ref, columns, [{ id: 1 }], { log: [mine, logRow(ref, "another run")] });
        const unit = await t.begin(ref, columns);
        try {
          expect(unit.runLogOfRun).toBeTypeOf("function");
          expect(await unit.runLogOfRun!(mine.runId)).toEqual([mine]);
          expect(await unit.runLogOfRun!("no such run")).toEqual([]);
          const next = { ...logRow(ref, "written in this unit"), runId: mine.runId };
          await unit.appendRunLog(next);
          expect(await unit.runLogOfRun!(mine.runId)).toEqual([mine, next]);
        } finally {
          await unit.abort();
        }
        expect(await t.target.readRunLog(ref)).toHaveLength(2);
      });

      test(
        "resumableReload: a build written beside the table logs under it; the swap puts it in place with its record",
        [],
        async (t, notApplicable) => {
          if (!t.target.capabilities.resumableReload) return notApplicable("capabilities.resumableReload is false");
          const ref = t.ref();
          const build = t.target.reloadBuildTable!(ref);
          expect(build).not.toEqual(ref);
          await t.load(ref, columns, [{ id: 1 }, { id: 2 }], { log: [logRow(ref, "the live table")] });
          // A window of the build: its rows in the build table, its record in the live table's log.
          const window = logRow(ref, "a window of the build");
          await t.load(build, columns, [{ id: 10 }], { log: [window], runLogTable: ref });
          expect(await t.target.readRunLog(build)).toEqual([]);
          expect((await t.target.readRunLog(ref)).map((r) => r.body)).toContain(window.body);
          expect(await t.rows(ref, columns)).toEqual(normalizeRows([{ id: 1 }, { id: 2 }], columns));
          if (t.target.capabilities.commitGuard) {
            const unit = await t.begin(build, columns, { runLogTable: ref });
            try {
              expect(await unit.runLogOfRun!(window.runId)).toEqual([window]);
            } finally {
              await unit.abort();
            }
          }
          const swapped = logRow(ref, "the swap");
          await t.target.swapReloadBuild!(ref, swapped);
          expect(await t.rows(ref, columns)).toEqual(normalizeRows([{ id: 10 }], columns));
          expect(await t.target.describeTable(build)).toBeNull();
          expect((await t.target.readRunLog(ref)).at(-1)).toEqual(swapped);
          // Without a build the swap only records, and the table stays.
          const alone = logRow(ref, "a swap with no build");
          await t.target.swapReloadBuild!(ref, alone);
          expect(await t.rows(ref, columns)).toEqual(normalizeRows([{ id: 10 }], columns));
          expect((await t.target.readRunLog(ref)).at(-1)).toEqual(alone);
          await t.load(build, columns, [{ id: 20 }]);
          await t.target.dropReloadBuild!(ref);
          await t.target.dropReloadBuild!(ref);
          expect(await t.target.describeTable(build)).toBeNull();
          expect(await t.rows(ref, columns)).toEqual(normalizeRows([{ id: 10 }], columns));
        },
      );

      test("a table without records reads an empty log", [], async (t) => {
        expect(await t.target.readRunLog(t.ref("absent"))).toEqual([]);
        const ref = t.ref();
        await t.load(ref, columns, [{ id: 1 }]);
        expect(await t.target.readRunLog(ref)).toEqual([]);
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
        test(c.title, typeCaseNeeds(c), async (t) => {
          const ref = t.ref();
          const columns = [col("id", "int32"), col("v", c.type)];
          const rows = [...values, null].map((v, id) => ({ id, v }));
          const ensured = await t.load(ref, columns, rows);
          expect(ensured.map((e) => e.name)).toEqual(["id", "v"]);
          expect((await t.target.describeTable(ref))?.columns.map((e) => [e.name, formatLogicalType(e.type)])).toEqual(
            ensured.map((e) => [e.name, formatLogicalType(e.type)]),
          );
          const written = batchFromRows(columns, rows);
          expect(await t.rows(ref, columns)).toEqual(
            normalizeRows(
              rows.map((_, i) => ({ id: i, v: cellOf(written, i) })),
              columns,
            ),
          );
        });
      }

      for (const c of typeCases.filter((c) => c.type.kind === "text" || c.type.kind === "json")) {
        const { values } = typeCaseValues(c, harness.skips);
        test(`${c.title} given as UTF-8 bytes (as the Postgres source gives it)`, typeCaseNeeds(c), async (t) => {
          const ref = t.ref();
          const columns = [col("id", "int32"), col("v", c.type)];
          // Around 12 bytes, where engines keep a string inline (DuckDB, Umbra-style layouts), in one- to four-byte characters.
          const edges = c.type.kind === "text" ? ["abcdefghijkl", "abcdefghijklm", "éééééé", "ééééééx", "😀😀😀", "😀😀😀a"] : [];
          const rows = [...values, null, ...edges].map((v, id) => ({ id, v }));
          const ensured = await t.target.ensureTable(ref, columns, { strategy: "append" });
          const unit = await t.begin(ref, ensured, {});
          try {
            await unit.write(withUtf8(batchFromRows(columns, rows)));
            await t.commit(ref, unit);
          } catch (error) {
            await unit.abort().catch(() => {});
            throw error;
          }
          expect(await t.rows(ref, columns)).toEqual(normalizeRows(rows, columns));
        });
      }

      for (const c of typeCases.filter((c) => c.type.kind === "decimal")) {
        const { values } = typeCaseValues(c, harness.skips);
        test(`${c.title} given as scaled integers (as the Postgres source gives it)`, typeCaseNeeds(c), async (t) => {
          const ref = t.ref();
          const type = c.type as Extract<LogicalType, { kind: "decimal" }>;
          const columns = [col("id", "int32"), col("v", type)];
          // The widest value a double holds exactly at this width, both signs, and the case's own that fit.
          const digits = "9".repeat(Math.min(type.precision, 15));
          const widest = type.scale > 0 ? `${digits.slice(0, -type.scale) || "0"}.${digits.slice(-type.scale)}` : digits;
          const candidates = [...values, widest, `-${widest}`, "0", null];
          const fits = candidates.filter((v) => {
            const one = withUtf8(batchFromRows(columns, [{ id: 0, v }]));
            return one.columns[1]?.scaled?.(type.scale) !== undefined;
          });
          const rows = fits.map((v, id) => ({ id, v }));
          const batch = withUtf8(batchFromRows(columns, rows));
          expect(batch.columns[1]?.scaled?.(type.scale)).toBeDefined();
          const ensured = await t.target.ensureTable(ref, columns, { strategy: "append" });
          const unit = await t.begin(ref, ensured, {});
          try {
            await unit.write(batch);
            await t.commit(ref, unit);
          } catch (error) {
            await unit.abort().catch(() => {});
            throw error;
          }
          expect(await t.rows(ref, columns)).toEqual(normalizeRows(rows, columns));
        });
      }

      // Not through `test`: the zone must be set before the fixture connects, as engines read it then.
      defineCase(
        report,
        harness.skips,
        `timestamps are UTC microseconds whatever the process time zone (TZ=${FAR_ZONE})`,
        [],
        async () => {
          const saved = process.env.TZ;
          process.env.TZ = FAR_ZONE;
          try {
            const fixture = await harness.connect();
            const t = new TargetCase(fixture, harness.skips);
            try {
              const columns = [col("id", "int32"), col("ts", "timestamp"), col("tz", "timestamptz"), col("d", "date")];
              // Around Chatham's DST changes of 2026, and before the epoch.
              const rows = [
                { id: 1, ts: "2026-04-05T02:30:00.000001Z", tz: "2026-09-27T02:45:00.999999Z", d: "2026-04-05" },
                { id: 2, ts: "1969-12-31T23:59:59.999999Z", tz: "2000-01-01T00:00:00Z", d: "1969-12-31" },
              ];
              const ref = t.ref();
              await t.load(ref, columns, rows);
              expect(await t.rows(ref, columns)).toEqual(normalizeRows(rows, columns));
              expect(await t.target.maxCursor(ref, "ts", "timestamp")).toEqual({
                kind: "timestamp",
                value: parseTimestampMicros("2026-04-05T02:30:00.000001Z"),
              });
              expect(await t.target.maxCursor(ref, "d", "date")).toEqual({ kind: "date", value: parseDateDays("2026-04-05") });
            } finally {
              await fixture.target.close().catch(() => {});
              await fixture.cleanup();
            }
          } finally {
            if (saved === undefined) delete process.env.TZ;
            else process.env.TZ = saved;
          }
        },
      );
    });

    describe("ensureTable", () => {
      const columns = [col("id", "int64"), col("name", "text")];

      test("creates a table and returns its columns; describeTable agrees; a second call changes nothing", [], async (t) => {
        const ref = t.ref();
        expect(await t.target.describeTable(ref)).toBeNull();
        const created = await t.target.ensureTable(ref, columns, { primaryKey: ["id"] });
        expect(created.map((c) => c.name)).toEqual(["id", "name"]);
        expect((await t.target.describeTable(ref))?.columns).toEqual(created);
        expect(await t.target.ensureTable(ref, columns, { primaryKey: ["id"] })).toEqual(created);
        expect(await t.rows(ref, columns)).toEqual([]);
      });

      test("adds missing columns at the end and keeps rows and columns the new schema lacks", [], async (t) => {
        const ref = t.ref();
        await t.load(ref, columns, [{ id: 1n, name: "a" }]);
        const evolved = await t.target.ensureTable(ref, [col("id", "int64"), col("added", "date"), col("also", "text")], {});
        expect(evolved.map((c) => c.name)).toEqual(["id", "name", "added", "also"]);
        const all = [col("id", "int64"), col("name", "text"), col("added", "date"), col("also", "text")];
        expect(await t.rows(ref, all)).toEqual([{ id: 1n, name: "a", added: null, also: null }]);
        await t.load(ref, all, [{ id: 2n, name: "b", added: "2024-02-29", also: "x" }]);
        expect(await t.rows(ref, all)).toEqual(
          normalizeRows(
            [
              { id: 1n, name: "a", added: null, also: null },
              { id: 2n, name: "b", added: "2024-02-29", also: "x" },
            ],
            all,
          ),
        );
      });

      test("refuses a changed column type with SL302 naming table and column, and changes nothing", ["typeChange"], async (t) => {
        const ref = t.ref();
        await t.load(ref, columns, [{ id: 1n, name: "a" }]);
        const before = await t.target.describeTable(ref);
        const error = await t.target.ensureTable(ref, [col("added", "date"), col("id", "text")], {}).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isSqlloadError(error) ? error.code : error).toBe("SL302");
        expect((error as Error).message).toContain(formatTargetTable(ref));
        expect((error as Error).message).toContain("id");
        expect(await t.target.describeTable(ref)).toEqual(before);
        expect(await t.rows(ref, columns)).toEqual([{ id: 1n, name: "a" }]);
      });
    });

    describe("identifiers with quotes, spaces, dots and Unicode", () => {
      for (const c of identifierCases) {
        test(`${c.title}: ${JSON.stringify(c.name)}`, ["oddIdentifiers"], async (t) => {
          await exerciseNames(t, t.ref(c.name), c.name);
        });
      }

      test(`a schema name with quotes, dots and spaces: ${JSON.stringify(oddSchemaSuffix)}`, ["oddSchemaNames"], async (t) => {
        await exerciseNames(t, t.ref("t", `${t.fixture.schema}${oddSchemaSuffix}`), "c");
      });
    });

    describe("capabilities", () => {
      test(
        "are declared as the connection's methods are: publish and discard when staged, lockTable when locking",
        [],
        async (t) => {
          expect(targetCapabilityProblems(t.target.capabilities, t.target)).toEqual([]);
        },
      );
    });

    describe("lockTable (optional)", () => {
      test("a second lock on a table fails with SL306 until the first is released", [], async (t, notApplicable) => {
        const lockTable = t.target.lockTable?.bind(t.target);
        if (!t.target.capabilities.locking || !lockTable) return notApplicable("capabilities.locking is false");
        const ref = t.ref();
        await t.target.ensureTable(ref, [col("id", "int32")], {});
        const lock = await lockTable(ref);
        await expect(lockTable(ref)).rejects.toMatchObject({ code: "SL306" });
        await lock.release();
        const again = await lockTable(ref);
        await again.release();
      });
    });
  });
}

function cellOf(batch: ReturnType<typeof batchFromRows>, row: number): unknown {
  const vector = batch.columns[1]!;
  if (vector.nulls?.[row] === 1) return null;
  return vector.values[row];
}

/** Every operation the runner performs, on a table and columns named `name`. */
/**
 * Writes each group of `input` as a batch that expires once its write settles, as the engine does
 * with a source that reuses its memory once it asks for the next item, then commits the unit.
 */
async function writeExpiring(
  t: TargetCase,
  ref: TargetTableRef,
  unit: CommitUnit,
  columns: readonly Column[],
  input: readonly (readonly InputRow[])[],
  utf8: boolean,
): Promise<void> {
  try {
    for (const rows of input) {
      const { batch, expire } = expiringBatch(columns, rows, { utf8 });
      await unit.write(batch);
      expire();
    }
    await t.commit(ref, unit);
  } catch (error) {
    await unit.abort().catch(() => {});
    throw error;
  }
}

async function exerciseNames(t: TargetCase, ref: TargetTableRef, name: string): Promise<void> {
  const key = `${name} key`;
  const cursor = `${name}`;
  const other = `${name} Ü`;
  const columns = [col(key, "int64"), col(cursor, "text"), col(other, "int32")];
  const row = (k: bigint, c: string | null, o: number) => ({ [key]: k, [cursor]: c, [other]: o });
  const first = logRow(ref, "names");
  const ensured = await t.target.ensureTable(ref, columns, { primaryKey: [key] });
  expect(ensured.map((c) => c.name)).toEqual([key, cursor, other]);
  expect((await t.target.describeTable(ref))?.columns.map((c) => c.name)).toEqual([key, cursor, other]);
  await t.load(ref, columns, [row(1n, "a", 1), row(2n, "B1", 2), row(3n, null, 3)], { log: [first] });
  expect(await t.target.maxCursor(ref, cursor, "text")).toEqual({ kind: "text", value: "a" });

  const del = await t.begin(ref, columns, { strategy: "delete_insert", cursor: { column: cursor, kind: "text" } });
  await del.deleteRange({ from: { kind: "text", value: "a" } });
  await t.commit(ref, del);
  expect(await t.values(ref, cursor, { kind: "text" })).toEqual(normalizeMultiset({ kind: "text" }, [null, "B1"]));

  if (!t.skips?.merge) {
    await t.load(ref, columns, [row(2n, "c", 20), row(4n, "d", 4)], {
      strategy: "merge",
      primaryKey: [key],
      cursor: { column: cursor, kind: "text" },
    });
    expect(await t.rows(ref, columns)).toEqual(normalizeRows([row(2n, "c", 20), row(3n, null, 3), row(4n, "d", 4)], columns));
  }
  expect(await t.target.readRunLog(ref)).toEqual([first]);

  if (!t.skips?.replace) {
    const replaced = await t.begin(ref, columns, { strategy: "replace" });
    await replaced.write(batchFromRows(columns, [row(9n, "z", 9)]));
    await t.commit(ref, replaced);
    expect(await t.rows(ref, columns)).toEqual(normalizeRows([row(9n, "z", 9)], columns));
  }
}

/** The next cursor value above `v`, where one fits the column (none past int64's maximum). */
function justAbove(v: CursorValue): CursorValue | undefined {
  switch (v.kind) {
    case "integer":
      return v.value < 2n ** 63n - 1n ? { kind: "integer", value: v.value + 1n } : undefined;
    case "date":
      return { kind: "date", value: v.value + 1 };
    case "timestamp":
      return { kind: "timestamp", value: v.value + 1n };
    case "text":
      return { kind: "text", value: `${v.value}\u0001` };
  }
}
