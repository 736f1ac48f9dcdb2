import { integerCursor, rangePredicate, textCursor, timestampCursor } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { commitScript, mergeSql, swapSql } from "./bigquery-commit-script.js";
import { cursorLiteral, qualifiedTable, quoteIdentifier, rangeDialect, stringLiteral } from "./bigquery-dialect.js";
import { tableLayout } from "./bigquery-layout.js";
import { maximumSql } from "./bigquery-maximum.js";
import { insertRunLogSql } from "./bigquery-run-log.js";

describe("BigQuery SQL", () => {
  it("quotes identifiers and escapes literals so nothing is reinterpreted", () => {
    expect(quoteIdentifier("a`b\\c")).toBe("`a\\`b\\\\c`");
    expect(qualifiedTable("raw", "t")).toBe("`raw`.`t`");
    expect(stringLiteral("it's \\ é 😀\n")).toBe("'it\\'s \\\\ \\u00e9 \\U0001f600\\u000a'");
  });

  it("writes range bounds as literals (partition pruning), text as UTF-8 bytes", () => {
    expect(cursorLiteral(timestampCursor(1_760_284_800_000_001n), "TIMESTAMP")).toBe("TIMESTAMP '2025-10-12 16:00:00.000001+00'");
    expect(cursorLiteral(timestampCursor(0n), "DATETIME")).toBe("DATETIME '1970-01-01 00:00:00.000000'");
    expect(cursorLiteral({ kind: "date", value: 1 }, "DATE")).toBe("DATE '1970-01-02'");
    expect(cursorLiteral(integerCursor(2n ** 63n - 1n), "INT64")).toBe("9223372036854775807");
    const predicate = rangePredicate(rangeDialect("STRING"), {
      column: "c",
      kind: "text",
      range: { from: textCursor("B1"), to: textCursor("a9") },
      includeNulls: false,
    });
    expect(predicate).toBe("CAST(`c` AS BYTES) >= CAST('B1' AS BYTES) AND CAST(`c` AS BYTES) < CAST('a9' AS BYTES)");
  });

  it("builds one transaction: deletes, rows from the stage, run log, commit", () => {
    const log = insertRunLogSql(
      "raw",
      "t",
      { runId: "r", table: "raw.t", at: "2026-01-01T00:00:00Z", formatVersion: 1, body: "{}" },
      "0",
    );
    const script = commitScript({
      table: "`raw`.`t`",
      stage: "`raw`.`s`",
      columns: ["id", "v"],
      deletes: ["`c` >= 1"],
      log: [log],
    });
    expect(script.sql.split(";\n")).toEqual([
      "BEGIN TRANSACTION",
      "DELETE FROM `raw`.`t` WHERE `c` >= 1",
      "INSERT INTO `raw`.`t` (`id`, `v`) SELECT `id`, `v` FROM `raw`.`s`",
      "INSERT INTO `raw`.`_sqlload_runs` (seq, run_id, table_name, target_name, `at`, format_version, body) SELECT COALESCE(MAX(seq), 0) + 1, @run_id_0, @table_name_0, @target_name_0, @at_0, @format_version_0, @body_0 FROM `raw`.`_sqlload_runs`",
      "COMMIT TRANSACTION;",
    ]);
    expect(script.params.format_version_0).toEqual({ type: "INT64", value: "1" });
  });

  it("merges on the keys, updating only the other columns, and swaps with one statement", () => {
    expect(mergeSql("`d`.`t`", "`d`.`s`", ["id", "v"], ["id"])).toBe(
      "MERGE `d`.`t` AS target USING `d`.`s` AS stage ON target.`id` = stage.`id` WHEN MATCHED THEN UPDATE SET `v` = stage.`v` WHEN NOT MATCHED THEN INSERT (`id`, `v`) VALUES (stage.`id`, stage.`v`)",
    );
    expect(mergeSql("`d`.`t`", "`d`.`s`", ["id"], ["id"])).not.toContain("WHEN MATCHED");
    expect(swapSql("`d`.`t`", "`d`.`b`")).toBe("CREATE OR REPLACE TABLE `d`.`t` COPY `d`.`b`");
  });

  it("partitions by the cursor (DAY on a timestamp, integer ranges on an integer) and clusters on the primary key", () => {
    const columns = [
      { name: "id", type: { kind: "int64" }, nullable: false },
      { name: "at", type: { kind: "timestamptz" }, nullable: false },
      { name: "f", type: { kind: "float64" }, nullable: true },
    ] as const;
    const layout = tableLayout(columns, {
      cursor: { column: "at", kind: "timestamp" },
      primaryKey: ["id", "f"],
      partition: true,
    });
    expect(layout.timePartitioning).toEqual({ type: "DAY", field: "at" });
    expect(layout.clustering).toEqual({ fields: ["id"] });
    expect(layout.rangePartitioning).toBeUndefined();
    const byId = tableLayout(columns, { cursor: { column: "id", kind: "integer" }, partition: true });
    expect(byId.timePartitioning).toBeUndefined();
    expect(byId.rangePartitioning).toEqual({ field: "id", range: { start: "0", end: "10000000000", interval: "1000000" } });
    const set = { start: -500n, end: 500n, interval: 10n };
    expect(tableLayout(columns, { cursor: { column: "id", kind: "integer" }, partition: true, integerRange: set })).toMatchObject(
      {
        rangePartitioning: { field: "id", range: { start: "-500", end: "500", interval: "10" } },
      },
    );
    for (const cursor of [
      { column: "at", kind: "timestamp" },
      { column: "id", kind: "integer" },
    ] as const) {
      const off = tableLayout(columns, { cursor, primaryKey: ["id"], partition: false });
      expect(off).toEqual({ fields: off.fields, clustering: { fields: ["id"] } });
    }
  });

  it("reads maxima exactly (text, INT64 micros, bytes for text), bounded by a literal when asked", () => {
    const at = (type: string) => ({ name: "c", type });
    expect(maximumSql("d", "t", at("INT64"), "integer", "`c` >= 30")).toBe(
      "SELECT CAST(MAX(`c`) AS STRING) AS v FROM `d`.`t` WHERE `c` >= 30",
    );
    expect(maximumSql("d", "t", at("DATE"), "date")).toBe("SELECT CAST(MAX(`c`) AS STRING) AS v FROM `d`.`t`");
    expect(maximumSql("d", "t", at("TIMESTAMP"), "timestamp")).toBe("SELECT UNIX_MICROS(MAX(`c`)) AS v FROM `d`.`t`");
    expect(maximumSql("d", "t", at("DATETIME"), "timestamp")).toBe("SELECT UNIX_MICROS(TIMESTAMP(MAX(`c`))) AS v FROM `d`.`t`");
    expect(maximumSql("d", "t", at("STRING"), "text")).toBe("SELECT CAST(MAX(CAST(`c` AS BYTES)) AS STRING) AS v FROM `d`.`t`");
    expect(() => maximumSql("d", "t", at("FLOAT64"), "integer")).toThrow(RangeError);
    expect(() => maximumSql("d", "t", { name: "c", type: "INT64", mode: "REPEATED" }, "integer")).toThrow(RangeError);
  });
});
