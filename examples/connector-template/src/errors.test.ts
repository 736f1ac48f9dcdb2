import { SqlloadError } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { sqliteErrorCode, wrapSqliteError } from "./errors.js";

describe("sqliteErrorCode", () => {
  it.each([
    ["SQLITE_BUSY", "SL306"],
    ["SQLITE_BUSY_SNAPSHOT", "SL306"],
    ["SQLITE_LOCKED", "SL306"],
    ["SQLITE_CANTOPEN", "SL308"],
    ["SQLITE_READONLY_DBMOVED", "SL308"],
    ["SQLITE_CONSTRAINT_NOTNULL", "SL305"],
    ["SQLITE_ERROR", "SL305"],
    [undefined, "SL305"],
  ])("%s → %s", (code, expected) => {
    expect(sqliteErrorCode(code)).toBe(expected);
  });

  it("keeps the driver's message and cause, and lets a SqlloadError through", () => {
    const cause = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    const wrapped = wrapSqliteError(cause, "writing raw.t failed", "raw.t");
    expect(wrapped).toMatchObject({ code: "SL306", retryable: true, table: "raw.t", cause });
    expect(wrapped.message).toBe("writing raw.t failed: database is locked");
    const own = new SqlloadError("SL302", "type changed");
    expect(wrapSqliteError(own, "x", "raw.t")).toBe(own);
  });
});
