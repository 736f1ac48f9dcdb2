import { DuckDBInstance } from "@duckdb/node-api";
import type { Column, RecordBatch } from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamBatches } from "../src/duckdb-batches.js";
import { t } from "./harness.js";

// DuckDB's client ends a streaming result that fails midway as if it were read to its end
// (duckdb-read-end.ts). These reads fail far into the result, after rows have been fetched: the
// read must throw DuckDB's error, not end early.

const ROWS = 3_000_000;
const FAILS_AT = 2_500_000;
const failing = `SELECT CAST(CASE WHEN i = ${FAILS_AT} THEN 'oops' ELSE i::VARCHAR END AS BIGINT) AS v FROM range(${ROWS}) t(i)`;
const complete = `SELECT i::BIGINT AS v FROM range(${ROWS}) t(i)`;
const schema: Column[] = [{ name: "v", type: t("int64"), nullable: true }];

let instance: DuckDBInstance;
beforeAll(async () => {
  instance = await DuckDBInstance.create(":memory:");
});
afterAll(() => instance.closeSync());

/** Reads `sql` to its end; the rows it gave, and what it threw. */
async function read(sql: string, inTransaction: boolean) {
  const connection = await instance.connect();
  if (inTransaction) await connection.run("BEGIN TRANSACTION");
  let rows = 0;
  let error: unknown;
  try {
    const batches = streamBatches(connection, sql, schema, {}, {}, new AbortController().signal, { inTransaction });
    for await (const batch of batches as AsyncIterable<RecordBatch>) rows += batch.length;
  } catch (e) {
    error = e;
  }
  return { connection, rows, error };
}

describe("a streamed read that fails midway", () => {
  for (const inTransaction of [false, true]) {
    it(`throws DuckDB's error, in ${inTransaction ? "the caller's transaction" : "a transaction of its own"}`, async () => {
      const { connection, rows, error } = await read(failing, inTransaction);
      expect(String(error)).toMatch(/Conversion Error: Could not convert string 'oops'/);
      // It failed after rows had come: without the check it would have ended there, quietly.
      expect(rows).toBeGreaterThan(0);
      expect(rows).toBeLessThan(FAILS_AT);
      // The connection is usable again, outside any transaction.
      await connection.run("BEGIN TRANSACTION");
      await connection.run("ROLLBACK");
      connection.closeSync();
    });
  }

  it("a read that succeeds gives every row and leaves no transaction of its own open", async () => {
    const { connection, rows, error } = await read(complete, false);
    expect(error).toBeUndefined();
    expect(rows).toBe(ROWS);
    await connection.run("BEGIN TRANSACTION");
    await connection.run("ROLLBACK");
    connection.closeSync();
  });

  it("a read abandoned by its consumer ends its own transaction", async () => {
    const connection = await instance.connect();
    const batches = streamBatches(connection, complete, schema, {}, {}, new AbortController().signal);
    for await (const batch of batches) {
      expect(batch.length).toBeGreaterThan(0);
      break;
    }
    await connection.run("BEGIN TRANSACTION");
    await connection.run("ROLLBACK");
    connection.closeSync();
  });

  it("in the caller's transaction, a read that succeeds leaves it open for the next", async () => {
    const { connection, rows } = await read(complete, true);
    expect(rows).toBe(ROWS);
    await expect(connection.run("BEGIN TRANSACTION")).rejects.toThrow(/within a transaction/);
    await connection.run("ROLLBACK");
    connection.closeSync();
  });
});
