import { SqlloadError, type VendorErrorKind } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { sqliteErrorKind, wrapSqliteError } from "./errors.js";

/** What the WebAssembly driver throws: SQLite's message, no code. */
const sqliteError = (message: string) => Object.assign(new Error(message), { name: "SQLite3Error" });

describe("sqliteErrorKind", () => {
  it.each<[string, VendorErrorKind]>([
    ["database is locked", "lock"],
    ["database table is locked", "lock"],
    ["unable to open database file", "connection"],
    ['Could not open the database "/nope/raw.sqlite"', "connection"],
    ["attempt to write a readonly database", "permission"],
    ["NOT NULL constraint failed: t.x", "bad_data"],
    ['near "SELEC": syntax error', "unknown"],
  ])("%s → %s", (message, kind) => {
    expect(sqliteErrorKind(sqliteError(message))).toBe(kind);
  });

  it("keeps the driver's message and cause, takes core's code for the kind, and lets a SqlloadError through", () => {
    const cause = sqliteError("database is locked");
    const wrapped = wrapSqliteError(cause, "writing raw.t failed", "raw.t");
    expect(wrapped).toMatchObject({ code: "SL306", retryable: true, table: "raw.t", cause });
    expect(wrapped.message).toBe("writing raw.t failed: database is locked");
    expect(wrapSqliteError(sqliteError("unable to open database file"), "x", "raw.t")).toMatchObject({
      code: "SL308",
      retryable: true,
    });
    const own = new SqlloadError("SL302", "type changed");
    expect(wrapSqliteError(own, "x", "raw.t")).toBe(own);
  });
});
