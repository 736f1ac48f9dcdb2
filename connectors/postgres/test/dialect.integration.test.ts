import fc from "fast-check";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgDateText, pgTimestampText, quoteLiteral } from "../src/postgres-dialect.js";
import { type Server, startServer } from "./harness.js";

let server: Server;
let sql: pg.Pool;

beforeAll(async () => {
  server = await startServer();
  sql = (await server.database("dialect")).sql;
});

afterAll(async () => {
  await server?.stop();
});

/** Any string Postgres can hold: no NUL, astral characters and lone quotes and backslashes likely. */
const pgString = fc
  .array(
    fc.oneof(
      fc.constantFrom("'", "\\", '"', "\n", "$", "E", "\u{1F600}", "\uFFFF"),
      fc.string({ unit: "grapheme", maxLength: 1 }),
    ),
  )
  .map((parts) => parts.join("").replaceAll("\0", ""));

describe("literals are read back as the same value", () => {
  for (const conforming of ["on", "off"]) {
    it(`text, with standard_conforming_strings ${conforming}`, async () => {
      const client = await sql.connect();
      try {
        await client.query(`SET standard_conforming_strings = ${conforming}`);
        await client.query("SET escape_string_warning = off");
        await fc.assert(
          fc.asyncProperty(pgString, async (s) => {
            const result = await client.query<{ same: boolean }>(`SELECT ${quoteLiteral(s)} = $1 AS same`, [s]);
            expect(result.rows[0]?.same).toBe(true);
          }),
          { numRuns: 300 },
        );
      } finally {
        client.release();
      }
    });
  }

  it("dates and timestamps in every era, to the microsecond", async () => {
    const micros = fc.bigInt({ min: -210_000_000_000_000_000n, max: 9_000_000_000_000_000_000n });
    await fc.assert(
      fc.asyncProperty(micros, async (m) => {
        const days = Number(m >= 0n ? m / 86_400_000_000n : -((-m + 86_400_000_000n - 1n) / 86_400_000_000n));
        // Microseconds since 1970, computed by Postgres from the literal, in integers.
        const result = await sql.query<{ ts: string; d: number }>(
          `SELECT ((EXTRACT(epoch FROM date_trunc('second', $1::timestamptz AT TIME ZONE 'UTC'))::int8 * 1000000)
                   + (EXTRACT(microseconds FROM $1::timestamptz AT TIME ZONE 'UTC')::int8 % 1000000))::text AS ts,
                  ($2::date - DATE '1970-01-01') AS d`,
          [pgTimestampText(m), pgDateText(days)],
        );
        expect(result.rows[0]?.ts).toBe(m.toString());
        expect(result.rows[0]?.d).toBe(days);
      }),
      { numRuns: 300 },
    );
  });
});
