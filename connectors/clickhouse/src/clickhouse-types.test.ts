import { type LogicalType, parseLogicalType } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { quoteIdent, stringLiteral } from "./clickhouse-dialect.js";
import { sortingColumns } from "./clickhouse-layout.js";
import { clickhouseTypeSql, fitsColumn, logicalTypeOf, parseClickHouseType } from "./clickhouse-types.js";

const type = (text: string) => parseLogicalType(text) as LogicalType;

describe("type mapping", () => {
  it.each([
    ["boolean", "Bool"],
    ["smallint", "Int16"],
    ["int", "Int32"],
    ["bigint", "Int64"],
    ["real", "Float32"],
    ["double", "Float64"],
    ["decimal(12,2)", "Decimal(12, 2)"],
    ["decimal(76,10)", "Decimal(76, 10)"],
    ["decimal(77,0)", "String"],
    ["text", "String"],
    ["json", "String"],
    ["bytes", "String"],
    ["uuid", "UUID"],
    ["date", "Date32"],
    ["time", "Time64(6)"],
    ["timestamp", "DateTime64(6, 'UTC')"],
    ["timestamptz", "DateTime64(6, 'UTC')"],
    ["list<bigint>", "Array(Nullable(Int64))"],
    ["list<list<text>>", "Array(Array(Nullable(String)))"],
  ])("%s → %s", (logical, clickhouse) => expect(clickhouseTypeSql(type(logical))).toBe(clickhouse));

  it.each([
    ["Nullable(Int64)", "int64"],
    ["UInt32", "int64"],
    ["UInt64", "decimal(20,0)"],
    ["Int128", "decimal(39,0)"],
    ["LowCardinality(Nullable(String))", "text"],
    ["FixedString(16)", "text"],
    ["Enum8('a' = 1, 'b,c' = 2)", "text"],
    ["Decimal(18, 4)", "decimal(18,4)"],
    ["Decimal64(3)", "decimal(18,3)"],
    ["DateTime('Europe/Berlin')", "timestamptz"],
    ["DateTime64(9, 'UTC')", "timestamptz"],
    ["Date", "date"],
    ["Time64(6)", "time"],
    ["Array(Nullable(Decimal(9, 2)))", "list<decimal(9,2)>"],
    ["Map(String, UInt64)", "json"],
    ["Tuple(a Int32, b String)", "json"],
    ["JSON", "json"],
    ["IPv4", "text"],
  ])("%s reads as %s", (clickhouse, logical) => {
    const parsed = logicalTypeOf(clickhouse);
    expect(parsed.kind === "decimal" || parsed.kind === "list" ? JSON.stringify(parsed) : parsed.kind).toBe(
      parsed.kind === "decimal" || parsed.kind === "list" ? JSON.stringify(type(logical)) : logical,
    );
  });

  it("parses nested types with quoted commas", () => {
    expect(parseClickHouseType("Nullable(DateTime64(6, 'UTC'))")).toEqual({
      name: "Nullable",
      args: [{ name: "DateTime64", args: ["6", "'UTC'"] }],
    });
  });

  it.each<[string, string, boolean]>([
    ["Int64", "int", true],
    ["Int32", "bigint", false],
    ["UInt64", "bigint", false],
    ["Nullable(Float64)", "real", true],
    ["Decimal(12, 2)", "decimal(10,2)", true],
    ["Decimal(12, 2)", "decimal(12,3)", false],
    ["String", "uuid", true],
    ["String", "decimal(90,2)", true],
    ["UUID", "text", false],
    ["Date32", "date", true],
    ["Date", "date", false],
    ["DateTime", "timestamp", false],
    ["DateTime64(3)", "timestamp", false],
    ["DateTime64(9, 'UTC')", "timestamptz", true],
    ["Array(Nullable(Int64))", "list<int>", true],
    ["Array(Nullable(Int32))", "list<bigint>", false],
  ])("%s takes %s: %s", (existing, incoming, fits) => expect(fitsColumn(existing, type(incoming))).toBe(fits));
});

describe("quoting", () => {
  it("escapes backticks and backslashes in identifiers, quotes and backslashes in literals", () => {
    expect(quoteIdent("a`b\\c")).toBe("`a\\`b\\\\c`");
    expect(stringLiteral("it's \\ here")).toBe("'it\\'s \\\\ here'");
  });

  it("reads sorting keys back into column names", () => {
    expect(sortingColumns("(id)")).toEqual(["id"]);
    expect(sortingColumns("updated_at, id")).toEqual(["updated_at", "id"]);
    expect(sortingColumns("`Odd, name`, `a\\`b`")).toEqual(["Odd, name", "a`b"]);
    expect(sortingColumns("toDate(at), id")).toEqual(["toDate(at)", "id"]);
    expect(sortingColumns("")).toEqual([]);
  });
});
