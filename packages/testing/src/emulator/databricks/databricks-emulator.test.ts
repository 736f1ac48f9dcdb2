import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestMatching } from "../failure-injection.js";
import { DatabricksEmulator } from "./databricks-emulator.js";

const require = createRequire(import.meta.url);
const { DBSQLClient, DBSQLLogger, LogLevel } = require("@databricks/sql") as typeof import("@databricks/sql");

// The emulator through the official driver: what it enforces, what it rejects, what it injects.
describe("the Databricks emulator", () => {
  let emulator: DatabricksEmulator;
  let legacy: DatabricksEmulator;
  beforeAll(async () => {
    emulator = await DatabricksEmulator.start({ catalogs: ["cat"], volumes: ["cat.s.vol"] });
    legacy = await DatabricksEmulator.start({ catalogs: ["cat"], atomic: false });
  });
  afterAll(async () => {
    await emulator?.close();
    await legacy?.close();
  });

  async function connect(target: DatabricksEmulator, token = target.token) {
    const e = target.endpoint;
    const client = new DBSQLClient({ logger: new DBSQLLogger({ level: LogLevel.error }) });
    await client.connect({
      host: e.host,
      port: e.port,
      path: e.httpPath,
      token,
      customCaCert: e.caCert,
      telemetryEnabled: false,
      retryMaxAttempts: 1,
    });
    const session = await client.openSession({ initialCatalog: "cat" });
    const run = async (sql: string, params: Record<string, string | null> = {}, staging?: string) => {
      const op = await session.executeStatement(sql, {
        namedParameters: params,
        ...(staging ? { stagingAllowedLocalPath: [staging] } : {}),
      });
      try {
        return await op.fetchAll();
      } finally {
        await op.close();
      }
    };
    const close = async () => {
      await session.close();
      await client.close();
    };
    return { run, close };
  }

  const count = async (table: string) =>
    Number((await emulator.database.query(`SELECT count(*) FROM "cat"."s".${table}`)).rows[0]?.[0]);

  it("runs the connector's statements, with named STRING parameters and exact STRING results", async () => {
    const c = await connect(emulator);
    try {
      await c.run("CREATE SCHEMA IF NOT EXISTS `cat`.`s`");
      await c.run(
        "CREATE TABLE IF NOT EXISTS `cat`.`s`.`t` (`id` BIGINT, `v` STRING, `ts` TIMESTAMP) TBLPROPERTIES ('delta.feature.catalogManaged' = 'supported')",
      );
      await c.run(
        "INSERT INTO `cat`.`s`.`t` (`id`, `v`, `ts`) VALUES (CAST(:p0 AS BIGINT), :p1, CAST(:p2 AS TIMESTAMP)), (CAST(:p3 AS BIGINT), NULL, NULL)",
        { p0: "9007199254740993", p1: "it's", p2: "2026-10-12 16:00:00.123456Z", p3: "1" },
      );
      expect(
        await c.run(
          "SELECT CAST(MAX(`id`) AS STRING) AS m, CAST(unix_micros(MAX(`ts`)) AS STRING) AS ts, MAX(`v` COLLATE UTF8_BINARY) AS v FROM `cat`.`s`.`t`",
        ),
      ).toEqual([{ m: "9007199254740993", ts: "1791820800123456", v: "it's" }]);
      expect(
        await c.run(
          "SELECT column_name, full_data_type, is_nullable FROM `cat`.information_schema.columns WHERE lower(table_schema) = lower(:schema) AND lower(table_name) = lower(:table) ORDER BY ordinal_position",
          { schema: "S", table: "T" },
        ),
      ).toEqual([
        { column_name: "id", full_data_type: "bigint", is_nullable: "YES" },
        { column_name: "v", full_data_type: "string", is_nullable: "YES" },
        { column_name: "ts", full_data_type: "timestamp", is_nullable: "YES" },
      ]);
    } finally {
      await c.close();
    }
  });

  it("rejects a statement shape it does not know", async () => {
    const c = await connect(emulator);
    try {
      await expect(c.run("DROP SCHEMA `cat`.`s` CASCADE")).rejects.toThrow(/does not understand this statement/);
    } finally {
      await c.close();
    }
  });

  it("refuses REPLACE WHERE rows outside the predicate, and changes nothing", async () => {
    const c = await connect(emulator);
    try {
      await c.run("CREATE TABLE IF NOT EXISTS `cat`.`s`.`r` (`id` BIGINT) TBLPROPERTIES ('delta.columnMapping.mode' = 'name')");
      await c.run("CREATE TABLE IF NOT EXISTS `cat`.`s`.`rb` (`id` BIGINT)");
      await c.run("INSERT INTO `cat`.`s`.`r` (`id`) VALUES (1), (5)");
      await c.run("INSERT INTO `cat`.`s`.`rb` (`id`) VALUES (6), (2)");
      await expect(
        c.run("INSERT INTO `cat`.`s`.`r` REPLACE WHERE `id` >= CAST(:p0 AS BIGINT) SELECT `id` FROM `cat`.`s`.`rb`", { p0: "5" }),
      ).rejects.toThrow(/DELTA_REPLACE_WHERE_MISMATCH/);
      expect(await count("r")).toBe(2);
      await c.run("INSERT INTO `cat`.`s`.`r` REPLACE WHERE `id` >= CAST(:p0 AS BIGINT) SELECT `id` FROM `cat`.`s`.`rb`", {
        p0: "2",
      });
      expect((await emulator.database.query('SELECT id FROM "cat"."s".r ORDER BY id')).rows).toEqual([[1n], [2n], [6n]]);
    } finally {
      await c.close();
    }
  });

  it("lands a BEGIN ATOMIC block all or nothing, only on catalog-managed tables", async () => {
    const c = await connect(emulator);
    try {
      await c.run(
        "CREATE TABLE IF NOT EXISTS `cat`.`s`.`a` (`id` BIGINT) TBLPROPERTIES ('delta.feature.catalogManaged' = 'supported')",
      );
      await c.run("CREATE TABLE IF NOT EXISTS `cat`.`s`.`plain` (`id` BIGINT)");
      await c.run(
        "BEGIN ATOMIC\n  INSERT INTO `cat`.`s`.`a` (`id`) VALUES (1);\n  INSERT INTO `cat`.`s`.`a` (`id`) VALUES (2);\nEND;",
      );
      expect(await count("a")).toBe(2);
      await expect(
        c.run(
          "BEGIN ATOMIC\n  DELETE FROM `cat`.`s`.`a` WHERE TRUE;\n  INSERT INTO `cat`.`s`.`a` (`id`) VALUES (CAST(:p0 AS BIGINT));\nEND;",
          {
            p0: "not a number",
          },
        ),
      ).rejects.toThrow(/CAST_INVALID_INPUT/);
      expect(await count("a")).toBe(2);
      await expect(c.run("BEGIN ATOMIC\n  INSERT INTO `cat`.`s`.`plain` (`id`) VALUES (1);\nEND;")).rejects.toThrow(
        /NON_CATALOG_MANAGED_TABLE/,
      );
      await expect(c.run("BEGIN ATOMIC\n  DROP TABLE IF EXISTS `cat`.`s`.`a`;\nEND;")).rejects.toThrow(/DDL/);
      expect(await count("plain")).toBe(0);
    } finally {
      await c.close();
    }
  });

  it("answers BEGIN ATOMIC with a syntax error on a runtime without transactions", async () => {
    const c = await connect(legacy);
    try {
      await expect(c.run("BEGIN ATOMIC\n  SELECT 1;\nEND;")).rejects.toThrow(/PARSE_SYNTAX_ERROR/);
    } finally {
      await c.close();
    }
  });

  it("refuses a wrong token, and fails an injected request with the class the test names", async () => {
    await expect(connect(emulator, "dapi-wrong")).rejects.toThrow();
    const c = await connect(emulator);
    try {
      const hit = emulator.failures.failNext(requestMatching({ shape: "select_constant" }), "slow down", {
        reason: "REQUEST_LIMIT_EXCEEDED",
      });
      await expect(c.run("SELECT 1")).rejects.toThrow(/\[REQUEST_LIMIT_EXCEEDED\] slow down/);
      expect((await hit).statement).toBe("SELECT 1");
      expect(await c.run("SELECT 1")).toEqual([{ 1: 1 }]);
    } finally {
      await c.close();
    }
  });

  it("stages files through presigned URLs, and COPY INTO loads each file into a table once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlload-emulator-volume-"));
    const c = await connect(emulator);
    try {
      const local = join(dir, "a.parquet");
      await emulator.database.query(`COPY (SELECT 9007199254740993::BIGINT AS id, 'x😀' AS v) TO '${local}' (FORMAT parquet)`);
      await c.run("CREATE SCHEMA IF NOT EXISTS `cat`.`s`");
      await c.run("CREATE TABLE IF NOT EXISTS `cat`.`s`.`v` (`id` BIGINT, `v` STRING)");
      await c.run(`PUT '${local}' INTO '/Volumes/cat/s/vol/f/a.parquet' OVERWRITE`, {}, dir);
      expect(emulator.volumes.paths).toEqual(["/Volumes/cat/s/vol/f/a.parquet"]);
      // The driver refuses a local file outside the allowed folder before anything moves.
      await expect(
        c.run(`PUT '${local}' INTO '/Volumes/cat/s/vol/f/b.parquet' OVERWRITE`, {}, join(dir, "other")),
      ).rejects.toThrow(/not a subset of allowed local paths/);
      await expect(c.run(`PUT '${local}' INTO '/Volumes/cat/s/vol/f/a.parquet'`, {}, dir)).rejects.toThrow(/FILE_ALREADY_EXISTS/);
      await expect(c.run(`PUT '${local}' INTO '/Volumes/cat/s/nope/a.parquet' OVERWRITE`, {}, dir)).rejects.toThrow(
        /UC_VOLUME_NOT_FOUND/,
      );
      const listed = await c.run("LIST '/Volumes/cat/s/vol/f/'");
      expect(listed).toMatchObject([{ path: "/Volumes/cat/s/vol/f/a.parquet", name: "a.parquet" }]);
      const copy = "COPY INTO `cat`.`s`.`v` FROM '/Volumes/cat/s/vol/f' FILEFORMAT = PARQUET FILES = ('a.parquet')";
      expect(await c.run(copy)).toMatchObject([{ num_inserted_rows: 1 }]);
      // Idempotent per file: loading it again skips it.
      expect(await c.run(copy)).toMatchObject([{ num_inserted_rows: 0 }]);
      expect((await emulator.database.query('SELECT id::VARCHAR, v FROM "cat"."s".v')).rows).toEqual([
        ["9007199254740993", "x😀"],
      ]);
      // Of two files named at once, only the one not loaded before is read.
      await c.run(`PUT '${local}' INTO '/Volumes/cat/s/vol/f/b.parquet' OVERWRITE`, {}, dir);
      expect(
        await c.run(
          "COPY INTO `cat`.`s`.`v` FROM '/Volumes/cat/s/vol/f' FILEFORMAT = PARQUET FILES = ('a.parquet', 'b.parquet')",
        ),
      ).toMatchObject([{ num_inserted_rows: 1 }]);
      await c.run("REMOVE '/Volumes/cat/s/vol/f/b.parquet'", {}, dir);
      await expect(
        c.run("COPY INTO `cat`.`s`.`v` FROM '/Volumes/cat/s/vol/f' FILEFORMAT = PARQUET FILES = ('missing.parquet')"),
      ).rejects.toThrow(/PATH_NOT_FOUND/);
      await c.run("CREATE TABLE IF NOT EXISTS `cat`.`s`.`w` (`id` INT, `v` STRING)");
      await expect(
        c.run("COPY INTO `cat`.`s`.`w` FROM '/Volumes/cat/s/vol/f' FILEFORMAT = PARQUET FILES = ('a.parquet')"),
      ).rejects.toThrow(/DELTA_FAILED_TO_MERGE_FIELDS/);
      await expect(c.run(`BEGIN ATOMIC\n  ${copy};\nEND;`)).rejects.toThrow(/TRANSACTION_NOT_SUPPORTED/);
      await c.run("REMOVE '/Volumes/cat/s/vol/f/a.parquet'", {}, dir);
      expect(emulator.volumes.paths).toEqual([]);
      await expect(c.run("LIST '/Volumes/cat/s/vol/f/'")).rejects.toThrow(/PATH_NOT_FOUND/);
    } finally {
      await c.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a presigned URL used twice or without its header, and injects failures at the upload", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlload-emulator-volume-"));
    const c = await connect(emulator);
    try {
      const local = join(dir, "b.parquet");
      await emulator.database.query(`COPY (SELECT 1::BIGINT AS id) TO '${local}' (FORMAT parquet)`);
      const hit = emulator.failures.failNext(requestMatching({ operation: "volume_put" }), "storage is down", { status: 503 });
      await expect(c.run(`PUT '${local}' INTO '/Volumes/cat/s/vol/g/b.parquet' OVERWRITE`, {}, dir)).rejects.toThrow(
        /HTTP error 503/,
      );
      expect((await hit).statement).toBe("/Volumes/cat/s/vol/g/b.parquet");
      expect(emulator.volumes.paths).not.toContain("/Volumes/cat/s/vol/g/b.parquet");
      // Without the driver: the URL the warehouse answers with, used with and without its header.
      const e = emulator.endpoint;
      const { DBSQLClient: Client } = require("@databricks/sql") as typeof import("@databricks/sql");
      const client = new Client({ logger: new DBSQLLogger({ level: LogLevel.error }) });
      await client.connect({
        host: e.host,
        port: e.port,
        path: e.httpPath,
        token: e.token,
        customCaCert: e.caCert,
        telemetryEnabled: false,
      });
      const session = await client.openSession({ initialCatalog: "cat" });
      const op = await session.executeStatement(`PUT '${local}' INTO '/Volumes/cat/s/vol/g/b.parquet' OVERWRITE`);
      const [row] = (await op.fetchAll()) as { presignedUrl: string; headers: Record<string, string> }[];
      await op.close();
      await session.close();
      await client.close();
      const { request } = await import("node:https");
      const send = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const req = request(
            row?.presignedUrl as string,
            { method: "PUT", ca: e.caCert, headers: { ...headers, "content-length": "1" } },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on("error", reject);
          req.end("x");
        });
      expect(await send({})).toBe(403);
      expect(await send(row?.headers ?? {})).toBe(200);
      expect(await send(row?.headers ?? {})).toBe(403);
    } finally {
      await c.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
