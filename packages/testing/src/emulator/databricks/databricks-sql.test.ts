import { describe, expect, it } from "vitest";
import { databricksTypeName, toDuckDbSql } from "./databricks-sql.js";

describe("Databricks SQL to DuckDB", () => {
  it("translates identifiers, parameters, types and functions, never quoted text", () => {
    expect(toDuckDbSql("SELECT `a``b`, ':x TIMESTAMP' FROM `c`.`s`.`t` WHERE `v` COLLATE UTF8_BINARY >= :p0")).toBe(
      `SELECT "a\`b", ':x TIMESTAMP' FROM "c"."s"."t" WHERE "v" >= $p0`,
    );
    expect(toDuckDbSql("CAST(:p AS TIMESTAMP), CAST(:q AS TIMESTAMP_NTZ), CAST(:r AS STRING), unhex(:s), unix_micros(x)")).toBe(
      "CAST($p AS TIMESTAMPTZ), CAST($q AS TIMESTAMP), CAST($r AS VARCHAR), from_hex($s), epoch_us(x)",
    );
    expect(toDuckDbSql("CREATE TABLE t (`x` BINARY) TBLPROPERTIES ('a' = 'b', 'c' = 'd')")).toBe('CREATE TABLE t ("x" BLOB)');
    expect(toDuckDbSql("CAST(from_json(:p0, 'ARRAY<STRING>') AS ARRAY<TIMESTAMP>), `c` ARRAY<DECIMAL(10,2)>")).toBe(
      'CAST(CAST(CAST($p0 AS JSON) AS VARCHAR[]) AS TIMESTAMPTZ[]), "c" DECIMAL(10,2)[]',
    );
    expect(
      toDuckDbSql(
        "transform(from_json(:p0, 'ARRAY<STRING>'), x0 -> CAST(from_json(x0, 'ARRAY<STRING>') AS ARRAY<DATE>)), `n` ARRAY<ARRAY<BIGINT>>",
      ),
    ).toBe(
      'list_transform(CAST(CAST($p0 AS JSON) AS VARCHAR[]), x0 -> CAST(CAST(CAST(x0 AS JSON) AS VARCHAR[]) AS DATE[])), "n" BIGINT[][]',
    );
    expect(toDuckDbSql("CAST(unix_date(MAX(`d`)) AS STRING)")).toBe(
      `CAST(datediff('day', DATE '1970-01-01', MAX("d")) AS VARCHAR)`,
    );
  });

  it("names DuckDB's types as information_schema.columns.full_data_type does", () => {
    expect(databricksTypeName("DECIMAL(12,2)")).toBe("decimal(12,2)");
    expect(databricksTypeName("TIMESTAMP WITH TIME ZONE")).toBe("timestamp");
    expect(databricksTypeName("TIMESTAMP")).toBe("timestamp_ntz");
    expect(databricksTypeName("BIGINT[]")).toBe("array<bigint>");
    expect(databricksTypeName("DATE[][]")).toBe("array<array<date>>");
    expect(() => databricksTypeName("HUGEINT")).toThrow(/no Databricks name/);
  });
});
