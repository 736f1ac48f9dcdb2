import { describe, expect, it } from "vitest";
import { parquetExpression } from "./databricks-parquet.js";

describe("the staged files' column expressions", () => {
  it("writes time, uuid and JSON as the text Delta holds, element by element in lists", () => {
    expect(parquetExpression('"t"', { kind: "time" })).toBe(`strftime(DATE '1970-01-01' + "t", '%H:%M:%S.%f')`);
    expect(parquetExpression('"u"', { kind: "uuid" })).toBe(`CAST("u" AS VARCHAR)`);
    expect(parquetExpression('"l"', { kind: "list", element: { kind: "list", element: { kind: "time" } } })).toBe(
      `list_transform("l", x0 -> list_transform(x0, x1 -> strftime(DATE '1970-01-01' + x1, '%H:%M:%S.%f')))`,
    );
  });

  it("leaves every type Parquet holds exactly as it is", () => {
    for (const kind of ["int64", "float32", "bytes", "date", "timestamp", "timestamptz", "text"] as const) {
      expect(parquetExpression('"c"', { kind })).toBe('"c"');
    }
    expect(parquetExpression('"c"', { kind: "decimal", precision: 38, scale: 10 })).toBe('"c"');
    expect(parquetExpression('"c"', { kind: "list", element: { kind: "list", element: { kind: "int64" } } })).toBe('"c"');
  });
});
