import type { LogicalType } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { databricksType, logicalTypeOf, parameterSql, parameterText, storedColumn, timestampText } from "./databricks-types.js";

describe("the Databricks type map", () => {
  const cases: readonly [LogicalType, string, LogicalType["kind"]][] = [
    [{ kind: "boolean" }, "BOOLEAN", "boolean"],
    [{ kind: "int16" }, "SMALLINT", "int16"],
    [{ kind: "int32" }, "INT", "int32"],
    [{ kind: "int64" }, "BIGINT", "int64"],
    [{ kind: "float32" }, "FLOAT", "float32"],
    [{ kind: "float64" }, "DOUBLE", "float64"],
    [{ kind: "decimal", precision: 12, scale: 2 }, "DECIMAL(12,2)", "decimal"],
    [{ kind: "text" }, "STRING", "text"],
    [{ kind: "uuid" }, "STRING", "text"],
    [{ kind: "json" }, "STRING", "text"],
    [{ kind: "time" }, "STRING", "text"],
    [{ kind: "bytes" }, "BINARY", "bytes"],
    [{ kind: "date" }, "DATE", "date"],
    [{ kind: "timestamp" }, "TIMESTAMP_NTZ", "timestamp"],
    [{ kind: "timestamptz" }, "TIMESTAMP", "timestamptz"],
  ];
  for (const [type, sql, back] of cases) {
    it(`${type.kind} is ${sql} and reads back as ${back}`, () => {
      expect(databricksType(type)).toBe(sql);
      expect(logicalTypeOf(sql.toLowerCase()).kind).toBe(back);
      expect(storedColumn({ name: "c", type, nullable: true }).type.kind).toBe(back);
    });
  }

  it("keeps decimal precision and scale, and refuses what Delta cannot hold", () => {
    expect(logicalTypeOf("decimal(38,9)")).toEqual({ kind: "decimal", precision: 38, scale: 9 });
    expect(() => databricksType({ kind: "decimal", precision: 40, scale: 2 })).toThrow(/38 digits/);
    expect(databricksType({ kind: "list", element: { kind: "timestamptz" } })).toBe("ARRAY<TIMESTAMP>");
    expect(logicalTypeOf("array<decimal(10,2)>")).toEqual({
      kind: "list",
      element: { kind: "decimal", precision: 10, scale: 2 },
    });
    expect(databricksType({ kind: "list", element: { kind: "list", element: { kind: "date" } } })).toBe("ARRAY<ARRAY<DATE>>");
    expect(logicalTypeOf("array<array<date>>")).toEqual({
      kind: "list",
      element: { kind: "list", element: { kind: "date" } },
    });
    expect(() => logicalTypeOf("map<string,int>")).toThrow(/no sqlload type/);
  });
});

describe("values as STRING parameters", () => {
  it("writes every value exactly", () => {
    expect(parameterText({ kind: "int64" }, 9007199254740993n)).toBe("9007199254740993");
    expect(parameterText({ kind: "float64" }, -0)).toBe("-0.0");
    expect(parameterText({ kind: "float64" }, Number.NaN)).toBe("NaN");
    expect(parameterText({ kind: "bytes" }, new Uint8Array([0, 255]))).toBe("00ff");
    expect(parameterText({ kind: "date" }, -1)).toBe("1969-12-31");
    expect(parameterText({ kind: "time" }, 3_723_000_004n)).toBe("01:02:03.000004");
    expect(parameterText({ kind: "timestamp" }, -1n)).toBe("1969-12-31 23:59:59.999999");
    expect(parameterText({ kind: "timestamptz" }, 1_791_820_800_123_456n)).toBe("2026-10-12 16:00:00.123456Z");
    expect(timestampText(0n)).toBe("1970-01-01 00:00:00.000000");
  });

  it("casts the parameter to the column's type in SQL", () => {
    expect(parameterSql({ kind: "int64" }, ":p0")).toBe("CAST(:p0 AS BIGINT)");
    expect(parameterSql({ kind: "timestamp" }, ":p0")).toBe("CAST(:p0 AS TIMESTAMP_NTZ)");
    expect(parameterSql({ kind: "bytes" }, ":p0")).toBe("unhex(:p0)");
    expect(parameterSql({ kind: "text" }, ":p0")).toBe(":p0");
    expect(parameterSql({ kind: "list", element: { kind: "int64" } }, ":p0")).toBe(
      "CAST(from_json(:p0, 'ARRAY<STRING>') AS ARRAY<BIGINT>)",
    );
    expect(parameterText({ kind: "list", element: { kind: "int64" } }, [2n ** 63n - 1n, null])).toBe(
      '["9223372036854775807",null]',
    );
  });

  it("sends a list of lists as JSON texts of JSON texts, cast level by level", () => {
    const nested: LogicalType = { kind: "list", element: { kind: "list", element: { kind: "date" } } };
    expect(parameterText(nested, [[19782, null], [], null])).toBe('["[\\"2024-02-29\\",null]","[]",null]');
    expect(parameterSql(nested, ":p0")).toBe(
      "transform(from_json(:p0, 'ARRAY<STRING>'), x0 -> CAST(from_json(x0, 'ARRAY<STRING>') AS ARRAY<DATE>))",
    );
    const bytes: LogicalType = { kind: "list", element: { kind: "list", element: { kind: "bytes" } } };
    expect(parameterSql(bytes, ":p0")).toBe(
      "transform(from_json(:p0, 'ARRAY<STRING>'), x0 -> transform(from_json(x0, 'ARRAY<STRING>'), x1 -> unhex(x1)))",
    );
  });
});
