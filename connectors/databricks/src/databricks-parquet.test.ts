import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { batchFromRows, type Column } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { ParquetStage, parquetExpression } from "./databricks-parquet.js";

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

describe("ParquetStage", () => {
  it("writes the unit's rows in write order into files of at most N rows, typed as the Delta columns", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlload-parquet-test-"));
    const columns: Column[] = [
      { name: "id", type: { kind: "int64" }, nullable: false },
      { name: "t", type: { kind: "time" }, nullable: true },
      { name: "u", type: { kind: "uuid" }, nullable: true },
      { name: "d", type: { kind: "list", element: { kind: "list", element: { kind: "date" } } }, nullable: true },
    ];
    const stage = await ParquetStage.open(columns, dir);
    try {
      const rows = (from: number, n: number) =>
        Array.from({ length: n }, (_, i) => ({
          id: 2n ** 62n + BigInt(from + i),
          t: i === 0 ? null : "01:02:03.000004",
          u: "123e4567-e89b-12d3-a456-426614174000",
          d: [["2024-02-29", null], []],
        }));
      await stage.append(batchFromRows(columns, rows(0, 3)), 0);
      await stage.append(batchFromRows(columns.slice(0, 1), rows(3, 2)), 3);
      expect(stage.rows).toBe(5);
      const files = await stage.writeFiles(dir, (i) => `f${i}.parquet`, 2);
      expect(files.map((f) => f.slice(dir.length + 1))).toEqual(["f0.parquet", "f1.parquet", "f2.parquet"]);
      const db = await DuckDBInstance.create(":memory:");
      const c = await db.connect();
      const schema = await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${files[0]}')`);
      expect(schema.getRows().map((r) => [r[0], r[1]])).toEqual([
        ["id", "BIGINT"],
        ["t", "VARCHAR"],
        ["u", "VARCHAR"],
        ["d", "DATE[][]"],
        ["_sqlload_seq", "BIGINT"],
      ]);
      const read = await c.runAndReadAll(
        `SELECT id::VARCHAR, t, u, d::VARCHAR, _sqlload_seq::INTEGER FROM read_parquet([${files.map((f) => `'${f}'`).join(", ")}]) ORDER BY _sqlload_seq`,
      );
      expect(read.getRows()).toEqual([
        ["4611686018427387904", null, "123e4567-e89b-12d3-a456-426614174000", "[[2024-02-29, NULL], []]", 0],
        ["4611686018427387905", "01:02:03.000004", "123e4567-e89b-12d3-a456-426614174000", "[[2024-02-29, NULL], []]", 1],
        ["4611686018427387906", "01:02:03.000004", "123e4567-e89b-12d3-a456-426614174000", "[[2024-02-29, NULL], []]", 2],
        ["4611686018427387907", null, null, null, 3],
        ["4611686018427387908", null, null, null, 4],
      ]);
      c.closeSync();
      db.closeSync();
    } finally {
      stage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
