import { describe, expect, it } from "vitest";
import { matchStatement, splitStatements } from "../statement-shapes.js";
import { bigqueryShapes, translateExpression } from "./bigquery-sql.js";

describe("the BigQuery emulator's statements", () => {
  it("translates the predicates sqlload writes into DuckDB", () => {
    expect(
      translateExpression(
        "(`c` IS NULL OR (CAST(`c` AS BYTES) >= CAST('it\\'s \\u00e9' AS BYTES) AND `t` < TIMESTAMP '2026-10-12 16:00:00.000000+00'))",
      ),
    ).toBe(`("c" IS NULL OR (encode("c") >= encode('it''s é') AND "t" < TIMESTAMPTZ '2026-10-12 16:00:00.000000+00'))`);
    expect(translateExpression("target_name = @target_name AND expires_at < CURRENT_TIMESTAMP()")).toBe(
      `"target_name" = $target_name AND "expires_at" < current_timestamp`,
    );
    expect(translateExpression("`d` >= DATE '2026-01-01' AND `x` < DATETIME '2026-01-01 00:00:00.000000'")).toBe(
      `"d" >= DATE '2026-01-01' AND "x" < TIMESTAMP '2026-01-01 00:00:00.000000'`,
    );
  });

  it("refuses anything else in an expression: functions, subqueries, comments", () => {
    expect(() => translateExpression("LOWER(`c`) = 'a'")).toThrow(/does not understand LOWER/);
    expect(() => translateExpression("`c` IN (SELECT 1)")).toThrow(/does not understand IN/);
    expect(() => translateExpression("`c` = 1 -- x")).toThrow(/does not understand this expression/);
    expect(() => translateExpression("CAST(`c` AS STRING) = 'a'")).toThrow(/does not understand CAST/);
  });

  it("knows each statement of a commit script, and no other", () => {
    const script =
      "BEGIN TRANSACTION;\nDELETE FROM `raw`.`t` WHERE `c` >= 1;\nINSERT INTO `raw`.`t` (`id`, `c`) SELECT `id`, `c` FROM `raw`.`s`;\nCOMMIT TRANSACTION;";
    expect(splitStatements(script).map((s) => matchStatement(bigqueryShapes, s).shape.name)).toEqual([
      "begin",
      "delete_range",
      "insert_select",
      "commit",
    ]);
    for (const unknown of [
      "TRUNCATE TABLE `raw`.`t`",
      "INSERT INTO `raw`.`t` (`id`) VALUES (1)",
      "SELECT `id` FROM `raw`.`t`",
      "CREATE TABLE `raw`.`x` AS SELECT * FROM `raw`.`t`",
      "INSERT INTO `raw`.`t` (`id`) SELECT `c` FROM `raw`.`s`",
    ]) {
      expect(() => {
        const { shape, match } = matchStatement(bigqueryShapes, unknown);
        shape.translate(match, undefined);
      }, unknown).toThrow(/does not understand|different column lists/);
    }
  });
});
