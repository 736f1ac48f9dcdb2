import {
  BIGINT,
  DECIMAL,
  type DuckDBType,
  DuckDBVarCharType,
  FLOAT,
  INTEGER,
  LIST,
  TIMESTAMP,
  TIMESTAMP_NS,
  TIMESTAMPTZ,
  TINYINT,
  VARCHAR,
} from "@duckdb/node-api";
import type { LogicalType } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { duckdbTypeSql, fitsColumn, logicalTypeOf, qualifiedName, quoteIdent, readExpression } from "./duckdb-dialect.js";
import { decimalText, scaleDecimal } from "./duckdb-values.js";

const JSON_TYPE = DuckDBVarCharType.create("JSON");
const dec = (precision: number, scale: number): LogicalType => ({ kind: "decimal", precision, scale });

describe("quoteIdent", () => {
  it.each([
    ["orders", '"orders"'],
    ['Odd "Name"', '"Odd ""Name"""'],
    ["a.b c", '"a.b c"'],
    ["ünï 😀", '"ünï 😀"'],
    ["select", '"select"'],
  ])("%s → %s", (name, quoted) => expect(quoteIdent(name)).toBe(quoted));

  it("qualifies schema and name", () => expect(qualifiedName('r"aw', "x.y")).toBe('"r""aw"."x.y"'));
});

describe("type mapping", () => {
  it.each<[LogicalType, string]>([
    [{ kind: "int16" }, "SMALLINT"],
    [{ kind: "float32" }, "REAL"],
    [dec(38, 10), "DECIMAL(38,10)"],
    [dec(39, 2), "VARCHAR"],
    [{ kind: "json" }, "JSON"],
    [{ kind: "timestamptz" }, "TIMESTAMPTZ"],
    [{ kind: "list", element: { kind: "list", element: { kind: "uuid" } } }, "UUID[][]"],
  ])("%j is %s", (type, sql) => expect(duckdbTypeSql(type)).toBe(sql));

  it.each<[DuckDBType, LogicalType, string]>([
    [TINYINT, { kind: "int16" }, 'CAST("c" AS SMALLINT)'],
    [BIGINT, { kind: "int64" }, '"c"'],
    [JSON_TYPE, { kind: "json" }, '"c"'],
    [TIMESTAMP_NS, { kind: "timestamp" }, 'CAST("c" AS TIMESTAMP)'],
    [LIST(TINYINT), { kind: "list", element: { kind: "int16" } }, 'CAST("c" AS SMALLINT[])'],
  ])("%s reads as %j through %s", (type, logical, expression) => {
    expect(logicalTypeOf(type)).toEqual(logical);
    expect(readExpression("c", type)).toBe(expression);
  });

  it.each<[DuckDBType, LogicalType, boolean]>([
    [BIGINT, { kind: "int32" }, true],
    [INTEGER, { kind: "int64" }, false],
    [FLOAT, { kind: "float64" }, false],
    [DECIMAL(10, 2), dec(9, 2), true],
    [DECIMAL(10, 2), dec(10, 3), false],
    [DECIMAL(10, 2), dec(11, 2), false],
    [VARCHAR, dec(50, 5), true],
    [VARCHAR, { kind: "json" }, true],
    [JSON_TYPE, { kind: "text" }, false],
    [TIMESTAMPTZ, { kind: "timestamp" }, true],
    [TIMESTAMP, { kind: "date" }, false],
    [TINYINT, { kind: "int16" }, false],
    [LIST(BIGINT), { kind: "list", element: { kind: "int16" } }, true],
    [LIST(INTEGER), { kind: "list", element: { kind: "int64" } }, false],
  ])("a %s column takes %j: %s", (existing, incoming, fits) => expect(fitsColumn(existing, incoming)).toBe(fits));
});

describe("decimals", () => {
  it.each([
    ["12.34", 2, 1234n],
    ["-12.340000", 2, -1234n],
    ["7", 3, 7000n],
    [".5", 1, 5n],
    ["123456789012345678901234567890.12345678", 8, 12345678901234567890123456789012345678n],
  ])("%s at scale %i", (text, scale, scaled) => {
    expect(scaleDecimal(text, scale)).toBe(scaled);
  });

  it.each([
    [1235n, 2, "12.35"],
    [-5n, 3, "-0.005"],
    [0n, 2, "0.00"],
    [42n, 0, "42"],
  ])("%s at scale %i is %s", (scaled, scale, text) => expect(decimalText(scaled, scale)).toBe(text));

  it("refuses digits the column would round away, rather than change a number silently", () => {
    expect(() => scaleDecimal("12.345", 2)).toThrow(/more than 2 decimal places/);
    expect(() => scaleDecimal("0.000000000000000000001", 9)).toThrow(RangeError);
  });

  it("refuses what is not a number", () => {
    expect(() => scaleDecimal("1e5", 0)).toThrow(RangeError);
    expect(() => scaleDecimal("", 0)).toThrow(RangeError);
  });
});
