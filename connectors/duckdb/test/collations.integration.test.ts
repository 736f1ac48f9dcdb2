import { join } from "node:path";
import { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { parseTableKey } from "@sqlload/core";
import { describe, expect, it, vi } from "vitest";
import { openSource, openTarget, tempProject } from "./harness.js";

// SPEC §4: a collation set on a target column is reported (plan warns), never overridden.
describe("describeTable reports the collations text columns set, as target and as source", () => {
  it("finds them by column name, quoted names included, and only where one is set", async () => {
    const project = tempProject();
    try {
      const instance = await DuckDBInstance.create(join(project.dir, "warehouse.duckdb"));
      const connection = await instance.connect();
      await connection.run(`create schema raw;
        create table raw.t (k varchar collate nocase, "Odd, ""name""" varchar collate NOACCENT.NOCASE, plain varchar, n decimal(18, 3));
        create table raw.none (k varchar)`);
      connection.closeSync();
      instance.closeSync();
      const target = await openTarget(project.dir);
      try {
        expect((await target.describeTable({ schema: "raw", name: "t" }))?.collations).toEqual({
          k: "nocase",
          'Odd, "name"': "NOACCENT.NOCASE",
        });
        expect((await target.describeTable({ schema: "RAW", name: "T" }))?.collations).toMatchObject({ k: "nocase" });
        expect((await target.describeTable({ schema: "raw", name: "none" }))?.collations).toEqual({});
      } finally {
        await target.close();
      }
      const source = await openSource(project.dir);
      try {
        const request = (key: string) => ({ table: parseTableKey(key), cursorColumn: "k", options: {} });
        expect((await source.describeTable(request("raw.t"))).collations).toEqual({ k: "nocase" });
        expect((await source.describeTable(request("raw.none"))).collations).toEqual({});
      } finally {
        await source.close();
      }
    } finally {
      project.cleanup();
    }
  });

  it("reads the columns, their nullability and the catalog at once, each on a connection of its own", async () => {
    const project = tempProject();
    try {
      const instance = await DuckDBInstance.create(join(project.dir, "warehouse.duckdb"));
      const connection = await instance.connect();
      await connection.run("create schema raw; create table raw.numbers (id bigint, ts timestamptz, v double)");
      connection.closeSync();
      instance.closeSync();
      const target = await openTarget(project.dir);
      const read = vi.spyOn(DuckDBConnection.prototype, "runAndReadAll");
      try {
        // A table without VARCHAR columns sets no collation, whatever its CREATE statement says.
        expect((await target.describeTable({ schema: "raw", name: "numbers" }))?.collations).toEqual({});
        const sent = read.mock.calls.map(([sql]) => String(sql));
        const on = (text: string) => read.mock.contexts[sent.findIndex((sql) => sql.includes(text))];
        const connections = ["LIMIT 0", "DESCRIBE", "duckdb_tables"].map(on);
        expect(connections.every((c) => c !== undefined)).toBe(true);
        expect(new Set(connections).size).toBe(3);
      } finally {
        read.mockRestore();
        await target.close();
      }
    } finally {
      project.cleanup();
    }
  });
});
