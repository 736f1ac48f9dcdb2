import { describe, expect, it } from "vitest";
import { duckType, rewriteExpression } from "./snowflake-expressions.js";

describe("Snowflake expressions as DuckDB runs them", () => {
  const cases: [string, string][] = [
    [`COLLATE("k", 'utf8') >= COLLATE(?, 'utf8')`, `("k") >= (?)`],
    [`"id" >= ?::NUMBER(38,0) AND "at" < ?::TIMESTAMP_NTZ(6)`, `"id" >= ?::DECIMAL(38,0) AND "at" < ?::TIMESTAMP`],
    [`TO_VARCHAR(DATE_PART(EPOCH_MICROSECOND, MAX("c")))`, `CAST(epoch_us(max("c")) AS VARCHAR)`],
    [`TO_NUMBER(s."id", 19, 0) AS "id"`, `CAST(s."id" AS DECIMAL(19,0)) AS "id"`],
    [`TO_ARRAY(PARSE_JSON(s."l"))`, `(CAST(s."l" AS JSON))`],
    [`HEX_DECODE_BINARY(s."b"), TO_TIMESTAMP_TZ(s."t")`, `unhex(s."b"), CAST(s."t" AS TIMESTAMPTZ)`],
    [`'it''s'`, `'it''s'`],
  ];
  for (const [snowflake, duck] of cases) {
    it(snowflake, () => expect(rewriteExpression(snowflake)).toBe(duck));
  }

  it("rejects functions, collations, formats and types it does not know", () => {
    expect(() => rewriteExpression("LOWER(k)")).toThrow(/does not know the function LOWER/);
    expect(() => rewriteExpression(`COLLATE(k, 'en-ci')`)).toThrow(/code point only/);
    expect(() => rewriteExpression(`TO_VARCHAR(d, 'DD/MM/YYYY')`)).toThrow(/format/);
    expect(() => rewriteExpression(`'a\\b'`)).toThrow(/backslash/);
    expect(() => duckType("GEOGRAPHY")).toThrow(/Snowflake type GEOGRAPHY/);
  });
});
