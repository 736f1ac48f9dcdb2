import {
  batchToRows,
  formatLogicalType,
  heldBatch,
  type RecordBatch,
  type SourceConnection,
  type TargetConnection,
} from "@sqlload/core";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyTable, openSource, openTarget, readRequest, rows, type Server, startServer, tableRequest } from "./harness.js";

let server: Server;
let sql: pg.Pool;
let source: SourceConnection;
let target: TargetConnection;

/**
 * Every type the connector maps, with its edge values, and how to compare a source value with
 * the target's (cast back to the source's type where the target declares another type).
 */
const COLUMNS: readonly { name: string; type: string; logical: string; compare?: string }[] = [
  { name: "c_int2", type: "int2", logical: "int16" },
  { name: "c_int4", type: "int4", logical: "int32" },
  { name: "c_int8", type: "int8", logical: "int64" },
  { name: "c_num", type: "numeric(12,2)", logical: "decimal(12,2)" },
  { name: "c_num_free", type: "numeric", logical: "decimal(38,9)" },
  { name: "c_num_wide", type: "numeric(40,10)", logical: "decimal(40,10)" },
  { name: "c_f4", type: "float4", logical: "float32" },
  { name: "c_f8", type: "float8", logical: "float64" },
  { name: "c_bool", type: "bool", logical: "boolean" },
  { name: "c_text", type: "text", logical: "text" },
  { name: "c_varchar", type: "varchar(20)", logical: "text" },
  { name: "c_char", type: "char(5)", logical: "text", compare: "s.c_char IS DISTINCT FROM d.c_char::char(5)" },
  { name: "c_bytea", type: "bytea", logical: "bytes" },
  { name: "c_date", type: "date", logical: "date" },
  { name: "c_ts", type: "timestamp", logical: "timestamp" },
  { name: "c_tstz", type: "timestamptz", logical: "timestamptz" },
  { name: "c_time", type: "time", logical: "time" },
  { name: "c_uuid", type: "uuid", logical: "uuid" },
  { name: "c_json", type: "json", logical: "json", compare: "s.c_json::jsonb IS DISTINCT FROM d.c_json" },
  { name: "c_jsonb", type: "jsonb", logical: "json" },
  { name: "c_int_arr", type: "int4[]", logical: "list<int32>" },
  { name: "c_text_arr", type: "text[]", logical: "list<text>" },
  { name: "c_num_arr", type: "numeric(6,2)[]", logical: "list<decimal(6,2)>" },
  { name: "c_tstz_arr", type: "timestamptz[]", logical: "list<timestamptz>" },
  { name: "c_int8_2d", type: "int8[]", logical: "list<int64>" },
  { name: "c_mood", type: "mood", logical: "text", compare: "s.c_mood::text IS DISTINCT FROM d.c_mood" },
  { name: "c_interval", type: "interval", logical: "text", compare: "s.c_interval IS DISTINCT FROM d.c_interval::interval" },
];

const VALUES = `
(1, 32767, 2147483647, 9223372036854775807, 9999999999.99, 123456789012345678901234567890.123456789012345678,
 123456789012345678901234567890.0123456789, 3.4028235e38, 1.7976931348623157e308, true,
 'plain', 'varchar', 'ab', '\\x00ff10'::bytea, '2026-10-12', '2026-10-12 16:00:00.000001', '2026-10-12 16:00:00.999999+00',
 '23:59:59.999999', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"b": 1,  "a": [1, 2]}', '{"k": "v", "n": 1.50}',
 '{1,NULL,3}', '{"a","b,c","d\\"e",NULL}', '{1.50,-2.25}', '{"2026-01-01 00:00:00.000001+00",NULL}', '{{1,2},{3,9223372036854775807}}',
 'happy', '1 day 02:03:04.5'),
(2, -32768, -2147483648, -9223372036854775808, -0.01, -0.000000000000000000001, 0, -1.5, '-0'::float8, false,
 E'quote '' backslash \\\\ newline \\n tab \\t', '', '', ''::bytea, '0044-03-15 BC', '1700-01-01 00:00:00.5', '2400-02-29 23:59:59.999999+00',
 '00:00:00', '00000000-0000-0000-0000-000000000000', '[]', '[]',
 '{}', '{}', '{}', '{}', '{}',
 'sad', '-3 years'),
(3, 0, 0, 9007199254740993, 0, 'NaN', 1e-10, 'NaN', 'Infinity', true,
 '😀 astral, 日本語, ﬀ U+FB00, é', 'ünïcödé', 'x', decode(repeat('ab', 5000), 'hex'), 'infinity', '-infinity', 'infinity',
 '12:00:00', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '"just a string"', 'null',
 '{NULL}', '{""}', '{0}', '{"1970-01-01 00:00:00+00"}', '{{NULL}}',
 'ok', '00:00:00.000001'),
(4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
 NULL, NULL, NULL, NULL, NULL, NULL, NULL)`;

beforeAll(async () => {
  server = await startServer();
  const db = await server.database("round_trip");
  sql = db.sql;
  await sql.query(`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`);
  await sql.query(`CREATE TABLE all_types (id int8 PRIMARY KEY, ${COLUMNS.map((c) => `${c.name} ${c.type}`).join(", ")})`);
  await sql.query(`INSERT INTO all_types VALUES ${VALUES}`);
  // Many rows as well, so batches fill and chunks split rows anywhere.
  await sql.query(
    `INSERT INTO all_types (id, c_int8, c_text, c_tstz, c_num, c_bytea, c_int_arr)
     SELECT 100 + g, g::int8 * 1000003, repeat('x', g % 300) || g, '2026-01-01'::timestamptz + g * interval '1.000001 second',
            g / 7.0, decode(md5(g::text), 'hex'), ARRAY[g, NULL, -g]
     FROM generate_series(1, 50000) g`,
  );
  source = await openSource(db.url);
  target = await openTarget(db.url);
});

afterAll(async () => {
  await source?.close();
  await target?.close();
  await server?.stop();
});

describe("Postgres to Postgres, every type", () => {
  it("maps each type to its logical type", async () => {
    const info = await source.describeTable(tableRequest("public.all_types"));
    const types = Object.fromEntries((info.columns ?? []).map((c) => [c.name, formatLogicalType(c.type)]));
    expect(types.id).toBe("int64");
    for (const c of COLUMNS) expect(types[c.name], c.name).toBe(c.logical);
  });

  /** One pass over both tables, naming the columns that differ on each differing row. */
  async function differences(table: string, columns: typeof COLUMNS) {
    const checks = columns.map(
      (c) => `CASE WHEN ${c.compare ?? `s.${c.name} IS DISTINCT FROM d.${c.name}`} THEN '${c.name}' END`,
    );
    const bad = await rows(
      sql,
      `SELECT * FROM (SELECT s.id, array_remove(ARRAY[${checks.join(", ")}], NULL) AS differs
                      FROM all_types s FULL JOIN ${table} d USING (id)) x
       WHERE cardinality(differs) > 0 LIMIT 5`,
    );
    return { bad, checks };
  }

  it("round-trips every value exactly through the reader and a commit unit (encoding each batch)", async () => {
    const ref = { schema: "raw", name: "app__all_types" };
    const { rows: count, stats } = await copyTable(source, target, tableRequest("public.all_types"), ref);
    expect(count).toBe(50_004);
    // json columns become jsonb, whose binary form differs: every batch is encoded.
    expect(stats).toEqual({ passedThrough: 0, encoded: expect.any(Number) });
    const [counted] = await rows<{ n: string }>(sql, "SELECT count(*) AS n FROM raw.app__all_types");
    expect(Number(counted?.n)).toBe(50_004);
    const { bad, checks } = await differences("raw.app__all_types", COLUMNS);
    expect(bad).toEqual([]);
    // The comparison itself must see a difference in the last digit.
    await sql.query("UPDATE raw.app__all_types SET c_num_wide = c_num_wide + 0.0000000001 WHERE id = 1");
    const caught = await rows(
      sql,
      `SELECT 1 FROM all_types s JOIN raw.app__all_types d USING (id) WHERE ${checks.join(" IS NOT NULL OR ")} IS NOT NULL`,
    );
    expect(caught).toHaveLength(1);
    const declared = await rows<{ column_name: string; data_type: string }>(
      sql,
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'raw' AND table_name = 'app__all_types'`,
    );
    const byName = Object.fromEntries(declared.map((r) => [r.column_name, r.data_type]));
    // Unconstrained numeric comes back unconstrained, so no digit is rounded away.
    expect(byName.c_num_free).toBe("numeric");
    expect(byName.c_json).toBe("jsonb");
  });

  it("passes the COPY bytes through unchanged when the target's columns take the same formats", async () => {
    const columns = COLUMNS.filter((c) => c.name !== "c_json");
    const ref = { schema: "raw", name: "app__all_types_native" };
    const request = tableRequest("public.all_types", undefined, ["id", ...columns.map((c) => c.name)]);
    const { rows: count, stats } = await copyTable(source, target, request, ref);
    expect(count).toBe(50_004);
    expect(stats).toEqual({ passedThrough: expect.any(Number), encoded: 0 });
    expect(stats?.passedThrough).toBeGreaterThan(10);
    expect((await differences("raw.app__all_types_native", columns)).bad).toEqual([]);
  });

  it("encodes a batch the engine rebuilt (no COPY bytes attached), with the same result", async () => {
    const columns = COLUMNS.filter((c) => c.name !== "c_json");
    const ref = { schema: "raw", name: "app__all_types_rebuilt" };
    const request = tableRequest("public.all_types", undefined, ["id", ...columns.map((c) => c.name)]);
    const info = await source.describeTable(request);
    const ensured = await target.ensureTable(ref, info.columns ?? [], {});
    const reader = await source.openTable(request, info);
    const unit = await target.begin(ref, { strategy: "append", columns: ensured });
    for await (const item of reader.read(readRequest())) if (item.kind === "batch") await unit.write({ ...item.batch });
    await unit.commit();
    await reader.close();
    expect((unit as unknown as { stats: unknown }).stats).toEqual({ passedThrough: 0, encoded: expect.any(Number) });
    expect((await differences("raw.app__all_types_rebuilt", columns)).bad).toEqual([]);
  });

  it("decodes values to core's storage exactly (bigint beyond 2^53, microseconds, infinities)", async () => {
    const request = tableRequest("public.all_types", "id", ["id", "c_int8", "c_ts", "c_tstz", "c_date", "c_num_free", "c_f8"]);
    const info = await source.describeTable(request);
    const reader = await source.openTable(request, info);
    try {
      const items: RecordBatch[] = [];
      for await (const item of reader.read({
        range: { to: { kind: "integer", value: 4n } },
        includeNulls: false,
        ordered: true,
        signal: new AbortController().signal,
      })) {
        if (item.kind === "batch") items.push(heldBatch(item.batch));
      }
      const all = items.flatMap(batchToRows);
      expect(all.map((r) => r.id)).toEqual([1n, 2n, 3n]);
      expect(all[0]?.c_int8).toBe(9223372036854775807n);
      expect(all[2]?.c_int8).toBe(9007199254740993n);
      expect(all[0]?.c_ts).toBe(1791820800000001n); // 2026-10-12 16:00:00.000001
      expect(all[1]?.c_ts).toBe(-8520335999500000n); // 1700-01-01 00:00:00.5
      expect(all[2]?.c_tstz).toBe(0x7fffffffffffffffn); // infinity, saturated
      expect(all[2]?.c_date).toBe(0x7fffffff);
      expect(all[0]?.c_num_free).toBe("123456789012345678901234567890.123456789012345678");
      expect(all[1]?.c_num_free).toBe("-0.000000000000000000001");
      expect(all[2]?.c_num_free).toBe("NaN");
      expect(Object.is(all[1]?.c_f8, -0)).toBe(true);
    } finally {
      await reader.close();
    }
  });
});
