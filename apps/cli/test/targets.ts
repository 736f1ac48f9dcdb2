import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createDatabase, type PostgresInstance, startPostgres } from "@sqlload/testing";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { TestProject } from "./project.js";

/** A target a TestProject loads into: its rows are queried the way that engine is. */
export interface Target {
  readonly name: string;
  project(tables: ConstructorParameters<typeof TestProject>[0], toml: string): Promise<TestProject>;
  query(p: TestProject, sql: string): Promise<Record<string, unknown>[]>;
}

/**
 * A throwaway Postgres server for the test file (started before its tests, stopped after), and a
 * function that creates a new database on it and returns its URL.
 */
export function postgresDatabases(prefix: string): () => Promise<string> {
  let server: PostgresInstance;
  let databases = 0;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => createDatabase(server.url, `${prefix}${databases++}`);
}

/**
 * The embedded DuckDB target and a Postgres target (a throwaway server for the test file, one
 * database per project), for tests that must hold on both.
 */
export function duckdbAndPostgres(): Target[] {
  const database = postgresDatabases("t");
  const urls = new WeakMap<TestProject, string>();
  return [
    { name: "duckdb", project: async (tables, toml) => new TestProject(tables, toml), query: (p, sql) => p.query(sql) },
    {
      name: "postgres",
      project: async (tables, toml) => {
        const p = new TestProject(tables, toml);
        const url = await database();
        const file = join(p.dir, "sqlload.toml");
        writeFileSync(
          file,
          readFileSync(file, "utf8").replace('connector = "duckdb"\npath = "w.duckdb"', `connector = "postgres"\nurl = "${url}"`),
        );
        urls.set(p, url);
        return p;
      },
      query: async (p, sql) => {
        const client = new pg.Client({ connectionString: urls.get(p) });
        await client.connect();
        try {
          return (await client.query(sql)).rows;
        } finally {
          await client.end();
        }
      },
    },
  ];
}
