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
    data: { rowset?: unknown[][]; rowtype?: { type: string }[] };
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
});
