import type { LogicalType } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { fitsColumn, fromStageText, logicalTypeOf, snowflakeTypeSql, stageText } from "./snowflake-types.js";

const catalog = (sql: string) => {
  const m = /^(\w+)(?:\((\d+),(\d+)\))?/.exec(sql) as RegExpExecArray;
  const dataType = m[1] === "VARCHAR" ? "TEXT" : (m[1] as string).replace(/\(.*$/, "");
  return {
    name: "c",
    dataType,
    precision: m[2] ? Number(m[2]) : null,
    scale: m[3] ? Number(m[3]) : null,
    nullable: true,
    collation: null,
  };
};

describe("the Snowflake type map", () => {
  const table: [LogicalType, string, string][] = [
    [{ kind: "boolean" }, "BOOLEAN", "boolean"],
    [{ kind: "int16" }, "NUMBER(5,0)", "int16"],
    [{ kind: "int32" }, "NUMBER(10,0)", "int32"],
    [{ kind: "int64" }, "NUMBER(19,0)", "int64"],
    [{ kind: "decimal", precision: 38, scale: 10 }, "NUMBER(38,10)", "decimal"],
    [{ kind: "float64" }, "FLOAT", "float64"],
    [{ kind: "text" }, "VARCHAR", "text"],
    [{ kind: "bytes" }, "BINARY", "bytes"],
    [{ kind: "json" }, "VARIANT", "json"],
    [{ kind: "date" }, "DATE", "date"],
    [{ kind: "time" }, "TIME(6)", "time"],
    [{ kind: "timestamp" }, "TIMESTAMP_NTZ(6)", "timestamp"],
    [{ kind: "timestamptz" }, "TIMESTAMP_TZ(6)", "timestamptz"],
    [{ kind: "list", element: { kind: "int64" } }, "ARRAY", "list"],
  ];
  for (const [logical, sql, back] of table) {
    it(`${logical.kind} ↔ ${sql}`, () => {
      expect(snowflakeTypeSql(logical)).toBe(sql);
      expect(logicalTypeOf(catalog(sql)).kind).toBe(back);
      expect(fitsColumn(catalog(sql), logical)).toBe(true);
    });
  }

  it("reads INTEGER (NUMBER(38,0)) as an exact decimal, and refuses narrowing", () => {
    expect(logicalTypeOf(catalog("NUMBER(38,0)"))).toEqual({ kind: "decimal", precision: 38, scale: 0 });
    expect(fitsColumn(catalog("NUMBER(10,0)"), { kind: "int64" })).toBe(false);
    expect(fitsColumn(catalog("NUMBER(38,0)"), { kind: "int64" })).toBe(true);
    expect(fitsColumn(catalog("VARCHAR"), { kind: "int32" })).toBe(false);
  });

  it("stages values as text the casts take back exactly", () => {
    expect(stageText({ kind: "float64" }, Number.NaN)).toBe("NaN");
    expect(stageText({ kind: "float64" }, Number.NEGATIVE_INFINITY)).toBe("-inf");
    expect(stageText({ kind: "timestamptz" }, 1n)).toBe("1970-01-01 00:00:00.000001+00:00");
    expect(stageText({ kind: "time" }, 86_399_999_999n)).toBe("23:59:59.999999");
    expect(stageText({ kind: "list", element: { kind: "int64" } }, [2n ** 63n - 1n, null])).toBe("[9223372036854775807,null]");
    expect(fromStageText({ kind: "list", element: { kind: "text" } }, "x")).toBe("TO_ARRAY(PARSE_JSON(x))");
    expect(fromStageText({ kind: "decimal", precision: 18, scale: 3 }, "x")).toBe("TO_NUMBER(x, 18, 3)");
  });
});
