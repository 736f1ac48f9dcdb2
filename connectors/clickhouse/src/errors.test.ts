import { SqlloadError } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { type ClickHouseErrorKind, clickhouseErrorKind, wrapClickHouseError } from "./errors.js";

/** An error as @clickhouse/client (and chdb's bridge to it) throws: `code` is the numeric code as text. */
const server = (code: number, message: string) => Object.assign(new Error(message), { code: String(code), type: "X" });
/** As chdb's own layer throws it: the code in `clickhouseCode`, the text in the message. */
const chdb = (code: number, message: string) =>
  Object.assign(new Error(`Code: ${code}. DB::Exception: ${message}`), { clickhouseCode: code, code: "CHDB_QUERY" });
const node = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:8123`), { code });

describe("clickhouseErrorKind", () => {
  it.each<[string, Error, ClickHouseErrorKind]>([
    ["UNKNOWN_TABLE", server(60, "Table raw.x does not exist."), "missing"],
    ["UNKNOWN_DATABASE", server(81, "Database raw does not exist."), "missing"],
    ["NO_SUCH_COLUMN_IN_TABLE", server(16, "There is no column c in table"), "missing"],
    ["TABLE_ALREADY_EXISTS", server(57, "Table raw.l already exists."), "exists"],
    ["CANNOT_PARSE_INPUT_ASSERTION_FAILED", chdb(27, "Cannot parse input"), "data"],
    ["CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN", server(349, "Cannot convert NULL value to non-Nullable type"), "data"],
    ["DECIMAL_OVERFLOW", server(407, "Decimal math overflow"), "data"],
    ["AUTHENTICATION_FAILED", server(516, "default: Authentication failed"), "auth"],
    ["ACCESS_DENIED", server(497, "Not enough privileges"), "permission"],
    ["NOT_IMPLEMENTED (EXCHANGE on Ordinary)", server(48, "EXCHANGE is supported only for Atomic databases"), "unsupported"],
    ["UNKNOWN_SETTING", server(115, "Unknown setting lightweight_deletes_sync"), "unsupported"],
    ["TOO_MANY_PARTS", server(252, "Too many parts (300)"), "transient"],
    ["MEMORY_LIMIT_EXCEEDED", server(241, "Memory limit (total) exceeded"), "transient"],
    ["TIMEOUT_EXCEEDED", server(159, "Timeout exceeded"), "transient"],
    [
      "chdb folder held by another process",
      chdb(76, "Cannot lock file /p/w/status. Another server instance in same directory is already running."),
      "locked",
    ],
    [
      "chdb connection error wrapping the lock",
      Object.assign(new Error("Failed to create connection for path '/p/w'"), {
        code: "CHDB_CONNECTION",
        cause: new Error(
          "Code: 76. DB::Exception: Cannot lock file /p/w/status. Another server instance in same directory is already running.",
        ),
      }),
      "locked",
    ],
    ["ECONNREFUSED", node("ECONNREFUSED"), "unreachable"],
    ["ENOTFOUND", node("ENOTFOUND"), "unreachable"],
    ["ECONNRESET", node("ECONNRESET"), "transient"],
    ["SYNTAX_ERROR", server(62, "Syntax error"), "other"],
    ["a plain error", new Error("something else"), "other"],
  ])("%s → %s", (_name, error, kind) => expect(clickhouseErrorKind(error)).toBe(kind));
});

describe("wrapClickHouseError", () => {
  it("keeps the first line, the cause and the table", () => {
    const cause = server(60, "Table raw.x does not exist.\nStack trace: ...");
    expect(wrapClickHouseError(cause, "SL305", "writing raw.x failed", "raw.x")).toMatchObject({
      code: "SL305",
      message: "writing raw.x failed: Table raw.x does not exist.",
      table: "raw.x",
      cause,
      retryable: false,
    });
  });

  it.each<[string, Error, string, boolean]>([
    ["transient: the given code, retryable", server(252, "Too many parts"), "SL305", true],
    ["unreachable server: SL308, retryable", node("ECONNREFUSED"), "SL308", true],
    ["refused login: SL308, not retryable", server(516, "Authentication failed"), "SL308", false],
    ["chdb folder held: SL306, retryable", chdb(76, "Cannot lock file /p/status. Another server instance"), "SL306", true],
    ["bad data: the given code", server(349, "Cannot convert NULL"), "SL305", false],
  ])("%s", (_name, error, code, retryable) => {
    expect(wrapClickHouseError(error, "SL305", "x")).toMatchObject({ code, retryable });
  });

  it("gives hints for what a user can fix, and keeps SqlloadErrors as they are", () => {
    expect(wrapClickHouseError(server(497, "denied"), "SL305", "x").hint).toMatch(/GRANT|CREATE TABLE/);
    expect(wrapClickHouseError(server(48, "EXCHANGE"), "SL305", "x").hint).toMatch(/Atomic/);
    const own = new SqlloadError("SL302", "changed");
    expect(wrapClickHouseError(own, "SL305", "x")).toBe(own);
  });
});
