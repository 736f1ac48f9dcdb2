import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { requestMatching } from "../failure-injection.js";
import { SnowflakeEmulator } from "./snowflake-emulator.js";

/** The wire as snowflake-sdk speaks it, by hand: the connector's tests drive the emulator through the real driver. */
async function login(emulator: SnowflakeEmulator, password = "secret"): Promise<string | undefined> {
  const response = await fetch(`${emulator.url}/session/v1/login-request`, {
    method: "POST",
    body: JSON.stringify({ data: { LOGIN_NAME: "sqlload", PASSWORD: password, AUTHENTICATOR: "SNOWFLAKE" } }),
  });
  return ((await response.json()) as { data?: { token?: string } }).data?.token;
}

async function query(emulator: SnowflakeEmulator, token: string, sqlText: string, bindings?: unknown) {
  const response = await fetch(`${emulator.url}/queries/v1/query-request`, {
    method: "POST",
    headers: { authorization: `Snowflake Token="${token}"` },
    body: JSON.stringify({ sqlText, bindings }),
  });
  return (await response.json()) as {
    success: boolean;
    code: string | null;
    data: {
      rowset?: unknown[][];
      rowtype?: { name: string; type: string }[];
      command?: string;
      src_locations?: string[];
      stageInfo?: { locationType: string; location: string };
    };
  };
}

describe("SnowflakeEmulator", () => {
  let emulator: SnowflakeEmulator;
  beforeEach(async () => {
    emulator = await SnowflakeEmulator.start();
  });
  afterEach(() => emulator.close());

  it("refuses a wrong password with Snowflake's code", async () => {
    expect(await login(emulator, "nope")).toBeUndefined();
  });

  it("commits an open transaction before DDL, as Snowflake does", async () => {
    const a = (await login(emulator)) as string;
    await query(emulator, a, `CREATE SCHEMA IF NOT EXISTS "s"`);
    await query(emulator, a, `CREATE TABLE "s"."t" ("id" NUMBER(19,0))`);
    await query(emulator, a, "BEGIN");
    await query(emulator, a, `INSERT INTO "s"."t" ("id") VALUES (?)`, { 1: { type: "TEXT", value: "9007199254740993" } });
    await query(emulator, a, `CREATE TABLE IF NOT EXISTS "s"."u" ("v" VARCHAR)`);
    await query(emulator, a, "ROLLBACK");
    const read = await query(emulator, a, `SELECT TO_VARCHAR(MAX("id")) AS "v" FROM "s"."t"`);
    expect(read.data.rowset).toEqual([["9007199254740993"]]);
  });

  it("swaps two tables with SWAP WITH and compares text by code point only", async () => {
    const a = (await login(emulator)) as string;
    await query(emulator, a, `CREATE SCHEMA IF NOT EXISTS "s"`);
    await query(emulator, a, `CREATE TABLE "s"."a" ("k" VARCHAR)`);
    await query(emulator, a, `CREATE TABLE "s"."b" ("k" VARCHAR)`);
    await query(emulator, a, `INSERT INTO "s"."b" ("k") VALUES (?)`, {
      1: { type: "TEXT", value: ["B1", "a9", "\u{10000}", "\uffff"] },
    });
    await query(emulator, a, `ALTER TABLE "s"."b" SWAP WITH "s"."a"`);
    const max = await query(emulator, a, `SELECT MAX(COLLATE("k", 'utf8')) AS "v" FROM "s"."a"`);
    expect(max.data.rowset).toEqual([["\u{10000}"]]);
    const other = await query(emulator, a, `SELECT MAX(COLLATE("k", 'en-ci')) AS "v" FROM "s"."a"`);
    expect(other).toMatchObject({ success: false, code: "001003" });
  });

  it("rejects statements it does not know, and fails an armed request with the given code", async () => {
    const a = (await login(emulator)) as string;
    expect(await query(emulator, a, "SHOW TABLES")).toMatchObject({ success: false, code: "001003" });
    emulator.failures.failNext(requestMatching({ shape: "commit" }), "token expired", { reason: "390114" });
    expect(await query(emulator, a, "COMMIT")).toMatchObject({ success: false, code: "390114" });
    expect(await query(emulator, a, "COMMIT")).toMatchObject({ success: true });
  });

  describe("PUT and COPY INTO a table stage", () => {
    const FORMAT =
      "TYPE = CSV COMPRESSION = GZIP FIELD_DELIMITER = ',' FIELD_OPTIONALLY_ENCLOSED_BY = '\"' ESCAPE = NONE ESCAPE_UNENCLOSED_FIELD = NONE EMPTY_FIELD_AS_NULL = TRUE NULL_IF = () TRIM_SPACE = FALSE SKIP_HEADER = 0 ERROR_ON_COLUMN_COUNT_MISMATCH = TRUE REPLACE_INVALID_CHARACTERS = FALSE ENCODING = 'UTF8'";
    const copy = (file: string, extra = "") =>
      `COPY INTO "s"."t" FROM @"s".%"t" FILES = ('${file}') FILE_FORMAT = (${FORMAT}) ON_ERROR = ABORT_STATEMENT PURGE = TRUE${extra}`;
    let dir: string;
    let token: string;
    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), "sqlload-emulator-put-"));
      token = (await login(emulator)) as string;
      await query(emulator, token, `CREATE SCHEMA IF NOT EXISTS "s"`);
      await query(emulator, token, `CREATE TEMPORARY TABLE "s"."t" ("v" VARCHAR, "n" NUMBER(19,0))`);
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    /** PUTs a file as snowflake-sdk does with a LOCAL_FS answer: it copies the file into the stage's folder. */
    async function put(name: string, csv: string): Promise<void> {
      const path = join(dir, name);
      writeFileSync(path, gzipSync(csv));
      const answer = await query(
        emulator,
        token,
        `PUT 'file://${path}' @"s".%"t" AUTO_COMPRESS = FALSE SOURCE_COMPRESSION = GZIP OVERWRITE = TRUE`,
      );
      expect(answer.data).toMatchObject({ command: "UPLOAD", src_locations: [path], stageInfo: { locationType: "LOCAL_FS" } });
      copyFileSync(path, join(answer.data.stageInfo?.location as string, name));
    }
    const values = async () => (await emulator.database.query(`SELECT "v", CAST("n" AS VARCHAR) FROM "s"."t" ORDER BY "n"`)).rows;

    it("loads quoted text exactly (NULL, empty, quotes, newlines, astral), once, and purges the file", async () => {
      await put("a_1.csv.gz", '"a,""b""\nc",1\n,2\n"",3\n"\\N 𝄞 ",4\n');
      const loaded = await query(emulator, token, copy("a_1.csv.gz"));
      expect(loaded.data.rowtype?.map((c) => c.name).slice(0, 4)).toEqual(["file", "status", "rows_parsed", "rows_loaded"]);
      expect(loaded.data.rowset?.[0]?.slice(0, 4)).toEqual(["a_1.csv.gz", "LOADED", "4", "4"]);
      expect(await values()).toEqual([
        ['a,"b"\nc', "1"],
        [null, "2"],
        ["", "3"],
        ["\\N 𝄞 ", "4"],
      ]);
      expect(emulator.stages.files(`"s"."t"`)).toEqual([]);
    });

    it("skips a file the table already loaded unless FORCE, as Snowflake's load metadata does", async () => {
      await put("a_1.csv.gz", '"x",1\n');
      await query(emulator, token, copy("a_1.csv.gz"));
      await put("a_1.csv.gz", '"x",1\n');
      const again = await query(emulator, token, copy("a_1.csv.gz"));
      expect(again.data.rowset).toEqual([["Copy executed with 0 files processed."]]);
      expect(await values()).toHaveLength(1);
      await query(emulator, token, copy("a_1.csv.gz", " FORCE = TRUE"));
      expect(await values()).toHaveLength(2);
    });

    it("aborts the whole COPY on one bad record, rejects other formats, and fails an armed PUT or COPY", async () => {
      await put("a_1.csv.gz", '"x",1\n"y",2,"extra"\n');
      expect(await query(emulator, token, copy("a_1.csv.gz"))).toMatchObject({ success: false });
      expect(await values()).toEqual([]);
      const other = await query(
        emulator,
        token,
        copy("a_1.csv.gz").replace("EMPTY_FIELD_AS_NULL = TRUE", "EMPTY_FIELD_AS_NULL = FALSE"),
      );
      expect(other).toMatchObject({ success: false, code: "001003" });
      expect(await query(emulator, token, copy("missing.csv.gz"))).toMatchObject({ success: false });
      emulator.failures.failNext(requestMatching({ shape: "put" }), "storage unavailable", { reason: "000603" });
      const failed = await query(
        emulator,
        token,
        `PUT 'file://${join(dir, "b.csv.gz")}' @"s".%"t" AUTO_COMPRESS = FALSE SOURCE_COMPRESSION = GZIP OVERWRITE = TRUE`,
      );
      expect(failed).toMatchObject({ success: false, code: "000603" });
      emulator.failures.failNext(requestMatching({ shape: "copy" }), "warehouse gone", { reason: "000603" });
      expect(await query(emulator, token, copy("a_1.csv.gz"))).toMatchObject({ success: false, code: "000603" });
    });

    it("drops a temporary table's stage with its session", async () => {
      await put("a_1.csv.gz", '"x",1\n');
      expect(emulator.stages.files(`"s"."t"`)).toEqual(["a_1.csv.gz"]);
      await emulator.expireSessions();
      expect(emulator.stages.files(`"s"."t"`)).toEqual([]);
    });
  });
});
