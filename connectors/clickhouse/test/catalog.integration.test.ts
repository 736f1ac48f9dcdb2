import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeTable } from "../src/clickhouse-catalog.js";
import { qualifiedName, quoteIdent } from "../src/clickhouse-dialect.js";
import type { ClickHouseSession } from "../src/clickhouse-session.js";
import { engines, freshDatabase } from "./harness.js";

for (const engine of engines()) {
  describe(`describeTable (${engine.name})`, () => {
    let session: ClickHouseSession;
    beforeAll(async () => {
      session = await engine.session();
    });
    afterAll(async () => {
      await session?.release();
      engine.cleanup();
    });

    it("gives the table and its columns in their order, in one statement", async () => {
      const db = freshDatabase();
      await session.command(`CREATE DATABASE ${quoteIdent(db)}`);
      // Twelve columns, so position 10 sorting before 2 as text would show.
      const columns = ["z", "a b", "`q`", "é", "y", "x", "w", "v", "u", "t", "s", "r"].map((name, i) => ({
        name,
        type: i % 3 === 0 ? "Int64" : i % 3 === 1 ? "Nullable(String)" : "LowCardinality(Nullable(String))",
      }));
      await session.command(
        `CREATE TABLE ${qualifiedName(db, "t")} (${columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(", ")}) ENGINE = MergeTree ORDER BY ${quoteIdent("z")} COMMENT 'c'`,
      );
      let statements = 0;
      const counting = new Proxy(session, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          if (key !== "query" && key !== "command") return value;
          return (...args: unknown[]) => {
            statements++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const table = await describeTable(counting, db, "t");
      expect(statements).toBe(1);
      expect(table).toMatchObject({ name: "t", engine: "MergeTree", sortingKey: "z", comment: "c" });
      expect(table?.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(table?.columns).toEqual(columns.map((c) => ({ ...c, nullable: c.type !== "Int64" })));
      expect(await describeTable(counting, db, "missing")).toBeNull();
      expect(await describeTable(counting, freshDatabase(), "t")).toBeNull();
    });
  });
}
