import { integerCursor, rangePredicate, textCursor, timestampCursor } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { Parameters } from "./databricks-dialect.js";
import { maxCursorSql, rangeDialect } from "./databricks-range.js";

describe("the Databricks range hooks", () => {
  it("compares text by code point and binds bounds as parameters", () => {
    const params = new Parameters();
    const sql = rangePredicate(rangeDialect(params, { kind: "text" }), {
      column: "c",
      kind: "text",
      range: { from: textCursor("B1"), to: textCursor("a9") },
      includeNulls: false,
    });
    expect(sql).toBe("`c` COLLATE UTF8_BINARY >= :p0 AND `c` COLLATE UTF8_BINARY < :p1");
    expect(params.values).toEqual({ p0: "B1", p1: "a9" });
  });

  it("casts timestamp bounds to the column's own type", () => {
    const ntz = new Parameters();
    expect(
      rangePredicate(rangeDialect(ntz, { kind: "timestamp" }), {
        column: "t",
        kind: "timestamp",
        range: { from: timestampCursor(1n) },
        includeNulls: true,
      }),
    ).toBe("(`t` IS NULL OR (`t` >= CAST(:p0 AS TIMESTAMP_NTZ)))");
    expect(ntz.values.p0).toBe("1970-01-01 00:00:00.000001");
    const tz = new Parameters();
    rangePredicate(rangeDialect(tz, { kind: "timestamptz" }), {
      column: "t",
      kind: "timestamp",
      range: { to: timestampCursor(0n) },
      includeNulls: false,
    });
    expect(tz.values.p0).toBe("1970-01-01 00:00:00.000000Z");
    const int = new Parameters();
    expect(
      rangePredicate(rangeDialect(int, { kind: "int64" }), {
        column: "i",
        kind: "integer",
        range: { from: integerCursor(2n ** 63n - 1n) },
        includeNulls: false,
      }),
    ).toBe("`i` >= CAST(:p0 AS BIGINT)");
    expect(int.values.p0).toBe("9223372036854775807");
  });

  it("reads maxima as exact text", () => {
    expect(maxCursorSql("c", "integer")).toBe("CAST(MAX(`c`) AS STRING)");
    expect(maxCursorSql("c", "date")).toBe("CAST(unix_date(MAX(`c`)) AS STRING)");
    expect(maxCursorSql("c", "timestamp")).toBe("CAST(unix_micros(MAX(`c`)) AS STRING)");
    expect(maxCursorSql("c", "text")).toBe("MAX(`c` COLLATE UTF8_BINARY)");
  });
});
