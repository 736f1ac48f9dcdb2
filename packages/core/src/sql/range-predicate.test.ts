import { describe, expect, it } from "vitest";
import { type CursorValue, formatCursor, integerCursor, textCursor } from "../cursor/cursor-value.js";
import { cursorOrderBy, type RangeDialect, rangePredicate } from "./range-predicate.js";

/** A Postgres-like dialect that renders literals, and a BigQuery-like one that binds parameters. */
const literal: RangeDialect = {
  quoteIdentifier: (name) => `"${name.replaceAll('"', '""')}"`,
  orderExpression: (column, kind) => (kind === "text" ? `${column} COLLATE "C"` : column),
  value: (value: CursorValue) => (value.kind === "text" ? `'${value.value.replaceAll("'", "''")}'` : formatCursor(value)),
};

function binding(): RangeDialect & { params: Record<string, unknown> } {
  const params: Record<string, unknown> = {};
  return {
    params,
    quoteIdentifier: (name) => `\`${name}\``,
    orderExpression: (column, kind) => (kind === "text" ? `CAST(${column} AS BYTES)` : column),
    value: (value, bound) => {
      params[bound] = value.value;
      return value.kind === "text" ? `CAST(@${bound} AS BYTES)` : `@${bound}`;
    },
  };
}

describe("rangePredicate", () => {
  const base = { column: "id", kind: "integer" as const };

  it("writes a half-open range, from inclusive and to exclusive", () => {
    const range = { from: integerCursor(10n), to: integerCursor(20n) };
    expect(rangePredicate(literal, { ...base, range, includeNulls: false })).toBe('"id" >= 10 AND "id" < 20');
  });

  it("writes an exclusive start when asked (append after the maximum)", () => {
    const range = { from: integerCursor(10n), fromInclusive: false };
    expect(rangePredicate(literal, { ...base, range, includeNulls: false })).toBe('"id" > 10');
  });

  it("keeps NULL cursors out of an incremental read, even when unbounded", () => {
    expect(rangePredicate(literal, { ...base, range: {}, includeNulls: false })).toBe('"id" IS NOT NULL');
    expect(rangePredicate(literal, { ...base, range: { to: integerCursor(5n) }, includeNulls: false })).toBe('"id" < 5');
  });

  it("takes NULL cursors into a full read", () => {
    expect(rangePredicate(literal, { ...base, range: {}, includeNulls: true })).toBe("TRUE");
    const range = { to: integerCursor(5n) };
    expect(rangePredicate(literal, { ...base, range, includeNulls: true })).toBe('("id" IS NULL OR ("id" < 5))');
  });

  it("compares text through the dialect's code-point expression on both sides", () => {
    const dialect = binding();
    const range = { from: textCursor("B1"), to: textCursor("a9") };
    const sql = rangePredicate(dialect, { column: "k", kind: "text", range, includeNulls: false });
    expect(sql).toBe("CAST(`k` AS BYTES) >= CAST(@from AS BYTES) AND CAST(`k` AS BYTES) < CAST(@to AS BYTES)");
    expect(dialect.params).toEqual({ from: "B1", to: "a9" });
  });

  it("qualifies the column and quotes odd names", () => {
    const range = { from: textCursor("it's") };
    const sql = rangePredicate(literal, { column: 'Odd "Name"', kind: "text", range, includeNulls: false, qualifier: "t" });
    expect(sql).toBe(`t."Odd ""Name""" COLLATE "C" >= 'it''s'`);
  });

  it("orders by the code-point expression, NULLs first", () => {
    expect(cursorOrderBy(literal, "k", "text")).toBe('"k" COLLATE "C" ASC NULLS FIRST');
    expect(cursorOrderBy(literal, "id", "integer")).toBe('"id" ASC NULLS FIRST');
  });
});
