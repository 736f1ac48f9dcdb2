import type { Column, LogicalType } from "@sqlload/core";
import { it, type TestContext } from "vitest";
import { type Capability, type Skips, skipFor } from "./capabilities.js";
import { canonicalKey, normalizeValue } from "./normalize.js";
import type { ConformanceReport } from "./report.js";

/** Thrown by `notApplicable`: the case does not apply to what the connection says it is. */
export type NotApplicable = (reason: string) => never;

/**
 * Registers one case. A case whose needs the connector skips becomes `it.skip` with the reason in
 * its title; a case that finds at run time that the connection rules it out (a transactional
 * target in a staged-only case) calls `notApplicable`, which skips it with a note. Both land in
 * the report printed after the suite.
 */
export function defineCase(
  report: ConformanceReport,
  skips: Skips | undefined,
  title: string,
  needs: readonly Capability[],
  body: (notApplicable: NotApplicable, context: TestContext) => Promise<void>,
): void {
  report.cases++;
  const skip = skipFor(skips, needs);
  if (skip) {
    const reason = `${skip.capability}: ${skip.reason}`;
    report.add({ case: title, status: "skipped", reason });
    it.skip(`${title} [skipped: ${reason}]`, () => {});
    return;
  }
  it(title, async (context) => {
    const notApplicable: NotApplicable = (reason) => {
      report.add({ case: title, status: "not applicable", reason });
      return context.skip(`not applicable: ${reason}`);
    };
    await body(notApplicable, context);
  });
}

export function col(name: string, type: LogicalType | LogicalType["kind"], nullable = true): Column {
  return { name, type: typeof type === "string" ? ({ kind: type } as LogicalType) : type, nullable };
}

/** Rows reduced to `columns`, each value normalized for its column's type, sorted canonically. */
export function normalizeRows(
  rows: readonly Readonly<Record<string, unknown>>[],
  columns: readonly Column[],
): Record<string, unknown>[] {
  return rows
    .map((row) => Object.fromEntries(columns.map((c) => [c.name, normalizeValue(c.type, row[c.name])])))
    .sort((a, b) => compareKeys(canonicalKey(a), canonicalKey(b)));
}

/** Values normalized for `type` and sorted canonically: a multiset to compare with `toEqual`. */
export function normalizeMultiset(type: LogicalType, values: readonly unknown[]): unknown[] {
  return values.map((value) => normalizeValue(type, value)).sort((a, b) => compareKeys(canonicalKey(a), canonicalKey(b)));
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Removes each of `remove` once from `values` (a multiset difference), comparing canonical keys. */
export function without<T>(values: readonly T[], remove: readonly T[], key: (value: T) => string): T[] {
  const left = [...values];
  for (const r of remove) {
    const i = left.findIndex((v) => key(v) === key(r));
    if (i < 0) throw new Error(`case table error: ${key(r)} is not among the dataset's values`);
    left.splice(i, 1);
  }
  return left;
}
