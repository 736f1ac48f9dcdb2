import { batchFromRows, integerCursor, textCursor, timestampCursor } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { Binds, maxExpression, microsText, quoteIdent, rangeCondition } from "./snowflake-dialect.js";
import { snowflakePlanNotes } from "./snowflake-plan-notes.js";
import { insertRunLogBinds, insertRunLogSql } from "./snowflake-run-log.js";
import { createStageSql, stageInserts, stageRows, typedStageColumns } from "./snowflake-stage.js";

describe("Snowflake SQL builders", () => {
  it("quotes identifiers exactly, doubling quotes", () => {
    expect(quoteIdent('Odd "Name".x')).toBe('"Odd ""Name"".x"');
  });

  it("compares text cursors as COLLATE(c, 'utf8') on both sides, with bound values", () => {
    const binds = new Binds();
    const sql = rangeCondition(
      { column: "k", kind: "text", range: { from: textCursor("B1"), to: textCursor("a9") }, includeNulls: false },
      binds,
    );
    expect(sql).toBe(`COLLATE("k", 'utf8') >= COLLATE(?, 'utf8') AND COLLATE("k", 'utf8') < COLLATE(?, 'utf8')`);
    expect(binds.values).toEqual(["B1", "a9"]);
  });

  it("binds integers past 2^53 and microsecond timestamps as exact text", () => {
    const binds = new Binds();
    const sql = rangeCondition(
      { column: "id", kind: "integer", range: { from: integerCursor(2n ** 53n + 1n) }, includeNulls: true },
      binds,
    );
    expect(sql).toBe(`("id" IS NULL OR ("id" >= ?::NUMBER(38,0)))`);
    expect(binds.values).toEqual(["9007199254740993"]);
    const t = new Binds();
    rangeCondition({ column: "at", kind: "timestamp", range: { to: timestampCursor(-1n) }, includeNulls: false }, t);
    expect(t.values).toEqual(["1969-12-31 23:59:59.999999"]);
    expect(microsText(1767323045123456n)).toBe("2026-01-02 03:04:05.123456");
  });

  it("reads maxima as exact text, text by code point", () => {
    expect(maxExpression('"c"', "text")).toBe(`MAX(COLLATE("c", 'utf8'))`);
    expect(maxExpression('"c"', "timestamp")).toBe(`TO_VARCHAR(DATE_PART(EPOCH_MICROSECOND, MAX("c")))`);
  });

  it("stages rows as text in inserts below the driver's stage-binding threshold, then casts them", () => {
    const columns = [
      { name: "id", type: { kind: "int64" }, nullable: false },
      { name: "b", type: { kind: "bytes" }, nullable: true },
    ] as const;
    const stage = { schema: "raw", name: "_sqlload_stage_x" };
    expect(createStageSql(stage, columns)).toBe(
      `CREATE TEMPORARY TABLE "raw"."_sqlload_stage_x" ("id" VARCHAR, "b" VARCHAR, "_sqlload_seq" NUMBER(19,0))`,
    );
    const rows = Array.from({ length: 25_001 }, (_, i) => ({
      id: BigInt(i) + 2n ** 60n,
      b: i === 0 ? new Uint8Array([0, 255]) : null,
    }));
    const inserts = stageInserts(stage, columns, stageRows(columns, batchFromRows(columns, rows), 10));
    expect(inserts).toHaveLength(2);
    expect(inserts[0]?.sql).toBe(`INSERT INTO "raw"."_sqlload_stage_x" ("id", "b", "_sqlload_seq") VALUES (?, ?, ?)`);
    expect(inserts[0]?.binds[0]).toEqual(["1152921504606846976", "00ff", "10"]);
    expect(inserts[1]?.binds.at(-1)).toEqual(["1152921504606871976", null, "25010"]);
    expect(inserts.every((i) => i.binds.length * 3 <= 60_000)).toBe(true);
    // A column the batch lacks is NULL in every staged row.
    const narrow = batchFromRows([columns[0]], [{ id: 7n }]);
    expect(stageRows(columns, narrow, 0)).toEqual([["7", null, "0"]]);
    expect(typedStageColumns(columns, "s")).toEqual([`TO_NUMBER(s."id", 19, 0) AS "id"`, `HEX_DECODE_BINARY(s."b") AS "b"`]);
  });

  it("appends a run-log record after the table's last, in one statement", () => {
    expect(insertRunLogSql("raw")).toContain(`COALESCE(MAX("pos"), 0) + 1`);
    expect(insertRunLogBinds("t", { runId: "r", table: "raw.t", at: "2026", formatVersion: 1, body: "{}" })).toEqual([
      "t",
      "r",
      "raw.t",
      "2026",
      "1",
      "{}",
      "t",
    ]);
  });
});

describe("snowflakePlanNotes", () => {
  const column = { name: "k", dataType: "TEXT", precision: null, scale: null, nullable: true, collation: "en-ci" };
  it("warns about a collated text cursor and about NTZ cursors in a non-UTC account", () => {
    expect(snowflakePlanNotes({ kind: "text", cursorColumn: column })[0]).toMatch(/collation 'en-ci'.*prune/);
    expect(
      snowflakePlanNotes({
        kind: "timestamp",
        cursorColumn: { ...column, dataType: "TIMESTAMP_NTZ" },
        defaultTimezone: "America/Los_Angeles",
      })[0],
    ).toMatch(/TIMESTAMP_NTZ.*America\/Los_Angeles/);
    expect(
      snowflakePlanNotes({ kind: "timestamp", cursorColumn: { ...column, dataType: "TIMESTAMP_NTZ" }, defaultTimezone: "UTC" }),
    ).toEqual([]);
  });
});
