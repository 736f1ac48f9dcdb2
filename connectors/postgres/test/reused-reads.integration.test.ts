import { createHash } from "node:crypto";
import { isSqlloadError, type RecordBatch, type SourceConnection, type TargetConnection } from "@sqlload/core";
import type pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ReadBuffers } from "../src/read-buffers.js";
import { copyTable, openSource, openTarget, readRequest, rows, type Server, startServer, tableRequest } from "./harness.js";

// Reads of a COPY land in socket buffers that are used again once the engine is done with the
// batches read from them (ChunkLedger). These load tables of many reads through real servers and
// check every byte that arrives, so that a buffer reused too early shows as a wrong value.

let server: Server;
let sql: pg.Pool;
let url: string;
let source: SourceConnection;

/** About 14 MB of COPY data: some 220 socket reads of 64 KB, against 64 buffers a socket keeps. */
const ROWS = 40_000;

/** What each row holds, written the same way in SQL and here. */
const CANON_SQL = `id || '|' || coalesce(name, '~') || '|' || coalesce(encode(blob, 'hex'), '~') || '|' || coalesce(price::text, '~')`;

beforeAll(async () => {
  server = await startServer();
  ({ url, sql } = await server.database("reused_reads"));
  await sql.query(`CREATE TABLE mixed (id int8 PRIMARY KEY, name text, blob bytea, price numeric(12, 2))`);
  await sql.query(`INSERT INTO mixed
    SELECT i,
           CASE WHEN i % 97 = 0 THEN NULL ELSE repeat(md5(i::text), 1 + i % 9) END,
           CASE WHEN i % 89 = 0 THEN NULL ELSE decode(repeat(md5((i * 7)::text), 1 + i % 4), 'hex') END,
           CASE WHEN i % 83 = 0 THEN NULL ELSE (i * 13 % 100000) / 100.0 END
    FROM generate_series(1, ${ROWS}) AS i`);
  source = await openSource(url);
});

afterAll(async () => {
  await source?.close();
  await server?.stop();
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function expectedDigest(pool: pg.Pool, table: string): Promise<string> {
  const [row] = await rows<{ d: string }>(pool, `SELECT md5(string_agg(${CANON_SQL}, E'\\n' ORDER BY id)) AS d FROM ${table}`);
  return row?.d as string;
}

function canon(batch: RecordBatch, r: number): string {
  const [id, name, blob, price] = batch.columns.map((c) => (c.nulls?.[r] === 1 ? undefined : c.values[r]));
  const hex = blob === undefined ? "~" : Buffer.from(blob as Uint8Array).toString("hex");
  return `${id}|${name ?? "~"}|${hex}|${price === undefined ? "~" : Number(price).toFixed(2)}`;
}

describe("reads into reused socket buffers", () => {
  it("reads every value of a table of many reads exactly, while its buffers are used again", async () => {
    const given = vi.spyOn(ReadBuffers.prototype, "give");
    const request = tableRequest("public.mixed", "id");
    const reader = await source.openTable(request, await source.describeTable(request));
    const lines: string[] = [];
    try {
      // As the engine does: every value read before the next item is asked for.
      for await (const item of reader.read(readRequest({ ordered: true, includeNulls: false }))) {
        if (item.kind !== "batch") continue;
        for (let r = 0; r < item.batch.length; r++) lines.push(canon(item.batch, r));
      }
    } finally {
      await reader.close();
    }
    expect(lines.length).toBe(ROWS);
    expect(createHash("md5").update(lines.join("\n")).digest("hex")).toBe(await expectedDigest(sql, "mixed"));
    // The buffers did go round: far more reads than buffers.
    expect(given.mock.calls.length).toBeGreaterThan(100);
  });

  it("passes the rows on to a Postgres target as they came, whatever buffer they were read into", async () => {
    const given = vi.spyOn(ReadBuffers.prototype, "give");
    const into = await server.database("reused_reads_target");
    const target: TargetConnection = await openTarget(into.url);
    try {
      const ref = { schema: "raw", name: "mixed" };
      const { rows: copied, stats } = await copyTable(source, target, tableRequest("public.mixed", "id"), ref);
      expect(copied).toBe(ROWS);
      // Every batch went on as the bytes it came in, none encoded again.
      expect(stats).toEqual({ passedThrough: Math.ceil(ROWS / 4096), encoded: 0 });
      expect(await expectedDigest(into.sql, "raw.mixed")).toBe(await expectedDigest(sql, "mixed"));
      expect(given.mock.calls.length).toBeGreaterThan(100);
    } finally {
      await target.close();
    }
  });

  it("refuses to decode a column of a batch the engine has moved past, rather than read reused memory", async () => {
    const request = tableRequest("public.mixed", "id");
    const reader = await source.openTable(request, await source.describeTable(request));
    const batches: RecordBatch[] = [];
    try {
      for await (const item of reader.read(readRequest())) if (item.kind === "batch") batches.push(item.batch);
    } finally {
      await reader.close();
    }
    let error: unknown;
    try {
      void batches[0]?.columns[1]?.values;
    } catch (e) {
      error = e;
    }
    expect(isSqlloadError(error) && error.code).toBe("SL900");
  });
});
