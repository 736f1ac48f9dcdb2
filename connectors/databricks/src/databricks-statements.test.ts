import type { Column } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { Parameters, qualifiedTable, quoteIdentifier } from "./databricks-dialect.js";
import { insertRunLogSql } from "./databricks-run-log.js";
import {
  addColumnsSql,
  atomicBlockSql,
  createOrReplaceSql,
  createTableSql,
  insertSelectSql,
  insertValuesSql,
  mergeSql,
  replaceWhereSql,
} from "./databricks-statements.js";

const columns: Column[] = [
  { name: "id", type: { kind: "int64" }, nullable: false },
  { name: "odd`name", type: { kind: "text" }, nullable: true },
];
const T = "`c`.`s`.`t`";
const B = "`c`.`s`.`b`";

describe("Databricks SQL builders", () => {
  it("quotes identifiers with backticks and qualifies them by catalog and schema", () => {
    expect(quoteIdentifier("a`b")).toBe("`a``b`");
    expect(qualifiedTable("main", { schema: "raw", name: "app__orders" })).toBe("`main`.`raw`.`app__orders`");
  });

  it("creates tables with column mapping, and with catalog-managed commits for the atomic model", () => {
    expect(createTableSql(T, columns, true)).toBe(
      "CREATE TABLE IF NOT EXISTS `c`.`s`.`t` (`id` BIGINT, `odd``name` STRING) TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.feature.catalogManaged' = 'supported')",
    );
    expect(createTableSql(T, columns, false)).toMatch(/TBLPROPERTIES \('delta\.columnMapping\.mode' = 'name'\)$/);
    expect(addColumnsSql(T, columns)).toBe("ALTER TABLE `c`.`s`.`t` ADD COLUMNS (`id` BIGINT, `odd``name` STRING)");
  });

  it("writes rows, appends, replaces a range and rebuilds from the build table", () => {
    expect(insertValuesSql(B, columns, [["CAST(:p0 AS BIGINT)", "NULL"]])).toBe(
      "INSERT INTO `c`.`s`.`b` (`id`, `odd``name`) VALUES (CAST(:p0 AS BIGINT), NULL)",
    );
    expect(insertSelectSql(T, columns, B)).toBe(
      "INSERT INTO `c`.`s`.`t` (`id`, `odd``name`) SELECT `id`, `odd``name` FROM `c`.`s`.`b`",
    );
    expect(replaceWhereSql(T, "`id` >= CAST(:p0 AS BIGINT)", columns, B)).toBe(
      "INSERT INTO `c`.`s`.`t` REPLACE WHERE `id` >= CAST(:p0 AS BIGINT) SELECT `id`, `odd``name` FROM `c`.`s`.`b`",
    );
    expect(createOrReplaceSql(T, columns, B, false)).toBe(
      "CREATE OR REPLACE TABLE `c`.`s`.`t` TBLPROPERTIES ('delta.columnMapping.mode' = 'name') AS SELECT `id`, `odd``name` FROM `c`.`s`.`b`",
    );
  });

  it("merges on the keys, keeping each key's last written row", () => {
    expect(mergeSql(T, columns, ["id"], B)).toBe(
      "MERGE INTO `c`.`s`.`t` AS tgt USING (SELECT `id`, `odd``name` FROM `c`.`s`.`b` QUALIFY ROW_NUMBER() OVER (PARTITION BY `id` ORDER BY `_sqlload_seq` DESC) = 1) AS src" +
        " ON tgt.`id` = src.`id` WHEN MATCHED THEN UPDATE SET `odd``name` = src.`odd``name` WHEN NOT MATCHED THEN INSERT (`id`, `odd``name`) VALUES (src.`id`, src.`odd``name`)",
    );
    expect(mergeSql(T, columns.slice(0, 1), ["id"], B)).not.toContain("WHEN MATCHED");
  });

  it("wraps a unit's statements in one BEGIN ATOMIC block", () => {
    expect(atomicBlockSql(["DELETE FROM x WHERE TRUE", "INSERT INTO y SELECT 1"])).toBe(
      "BEGIN ATOMIC\n  DELETE FROM x WHERE TRUE;\n  INSERT INTO y SELECT 1;\nEND;",
    );
  });

  it("numbers a unit's run-log records after the table's last one, all as parameters", () => {
    const params = new Parameters();
    const sql = insertRunLogSql(
      "c",
      { schema: "s", name: "t" },
      "s.t",
      [{ runId: "r'1", table: "s.t", at: "2026-10-12T16:00:00Z", formatVersion: 1, body: "{}" }],
      params,
    );
    expect(sql).toBe(
      "INSERT INTO `c`.`s`.`_sqlload_runs` (`target_name`, `pos`, `run_id`, `table_name`, `at`, `format_version`, `body`)" +
        " SELECT :p0, b.base + v.k, v.run_id, v.table_name, v.logged_at, CAST(v.format_version AS INT), v.body" +
        " FROM (VALUES (1, :p1, :p2, :p3, :p4, :p5)) AS v(k, run_id, table_name, logged_at, format_version, body)" +
        " CROSS JOIN (SELECT COALESCE(MAX(`pos`), 0) AS base FROM `c`.`s`.`_sqlload_runs` WHERE `target_name` = :p0) AS b",
    );
    expect(params.values).toEqual({ p0: "s.t", p1: "r'1", p2: "s.t", p3: "2026-10-12T16:00:00Z", p4: "1", p5: "{}" });
  });
});
