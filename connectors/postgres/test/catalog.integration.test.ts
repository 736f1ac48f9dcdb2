import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeRelation, findTable } from "../src/postgres-catalog.js";
import { type Server, startServer } from "./harness.js";

let server: Server;
let sql: pg.Pool;

beforeAll(async () => {
  server = await startServer();
  sql = (await server.database("catalog")).sql;
  await sql.query(`CREATE SCHEMA s;
    CREATE DOMAIN s.amount AS numeric(12,2);
    CREATE TABLE s."Orders" (id bigint NOT NULL, gone int, note varchar(20) COLLATE "C", total s.amount, tags text[]);
    ALTER TABLE s."Orders" DROP COLUMN gone;
    CREATE TABLE s.empty ();
    CREATE VIEW s.v AS SELECT id FROM s."Orders";
    CREATE SEQUENCE s.seq;
    CREATE TABLE public.on_path (x int)`);
});

afterAll(async () => {
  await server?.stop();
});

describe("describeRelation: a table's oid and columns in one round trip", () => {
  it("gives the columns in order, without dropped ones, domains resolved to their base type", async () => {
    const relation = await describeRelation(sql, { schema: "s", name: "Orders" });
    expect(relation?.oid).toBe(await findTable(sql, { schema: "s", name: "Orders" }));
    expect(relation?.columns.map((c) => [c.name, c.nullable, c.pgType, c.collation, c.type.kind])).toEqual([
      ["id", false, "int8", null, "int64"],
      ["note", true, "varchar", "C", "text"],
      ["total", true, "numeric", null, "decimal"],
      ["tags", true, "_text", "default", "list"],
    ]);
  });

  it("gives a table without columns as no columns, and a missing table or schema as null", async () => {
    const empty = await describeRelation(sql, { schema: "s", name: "empty" });
    expect(empty).toEqual({
      oid: await findTable(sql, { schema: "s", name: "empty" }),
      columns: [],
      alsoExists: false,
      wholeCopy: true,
    });
    expect(empty?.oid).toEqual(expect.any(Number));
    expect(await describeRelation(sql, { schema: "s", name: "orders" })).toBeNull();
    expect(await describeRelation(sql, { schema: "nowhere", name: "Orders" })).toBeNull();
  });

  it("finds what findTable finds: views yes, sequences no; without a schema, on the search path", async () => {
    expect((await describeRelation(sql, { schema: "s", name: "v" }))?.columns.map((c) => c.name)).toEqual(["id"]);
    expect(await describeRelation(sql, { schema: "s", name: "seq" })).toBeNull();
    expect((await describeRelation(sql, { name: "on_path" }))?.columns.map((c) => c.name)).toEqual(["x"]);
    expect(await describeRelation(sql, { name: "not_there" })).toBeNull();
  });

  it("tells in the same query whether another relation exists (a target table's run log)", async () => {
    const both = await describeRelation(sql, { schema: "s", name: "empty" }, '"s"."Orders"');
    expect(both?.alsoExists).toBe(true);
    expect((await describeRelation(sql, { schema: "s", name: "Orders" }, '"s"."nothing"'))?.alsoExists).toBe(false);
    expect((await describeRelation(sql, { name: "on_path" }, '"s"."v"'))?.alsoExists).toBe(true);
    expect(await describeRelation(sql, { schema: "s", name: "nothing" }, '"s"."Orders"')).toBeNull();
  });
});
