import { SqlloadError, type VendorErrorKind } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { alreadyExists, clickhouseErrorKind, wrapClickHouseError } from "./errors.js";

/** An error as @clickhouse/client (and chdb's bridge to it) throws: `code` is the numeric code as text. */
const server = (code: number, message: string) => Object.assign(new Error(message), { code: String(code), type: "X" });
/** As chdb's own layer throws it: the code in `clickhouseCode`, the text in the message. */
const chdb = (code: number, message: string) =>
  Object.assign(new Error(`Code: ${code}. DB::Exception: ${message}`), { clickhouseCode: code, code: "CHDB_QUERY" });
const node = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:8123`), { code });

describe("clickhouseErrorKind", () => {
  it.each<[string, Error, VendorErrorKind]>([
    ["UNKNOWN_TABLE", server(60, "Table raw.x does not exist."), "missing_table"],
    ["UNKNOWN_DATABASE", server(81, "Database raw does not exist."), "missing_table"],
    ["NO_SUCH_COLUMN_IN_TABLE", server(16, "There is no column c in table"), "missing_column"],
    ["TABLE_ALREADY_EXISTS", server(57, "Table raw.l already exists."), "unknown"],
    ["CANNOT_PARSE_INPUT_ASSERTION_FAILED", chdb(27, "Cannot parse input"), "bad_data"],
    ["CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN", server(349, "Cannot convert NULL value to non-Nullable type"), "bad_data"],
    ["DECIMAL_OVERFLOW", server(407, "Decimal math overflow"), "bad_data"],
    ["AUTHENTICATION_FAILED", server(516, "default: Authentication failed"), "auth"],
    ["ACCESS_DENIED", server(497, "Not enough privileges"), "permission"],
    ["NOT_IMPLEMENTED (EXCHANGE on Ordinary)", server(48, "EXCHANGE is supported only for Atomic databases"), "unsupported"],
    ["UNKNOWN_SETTING", server(115, "Unknown setting lightweight_deletes_sync"), "unsupported"],
    ["TOO_MANY_PARTS", server(252, "Too many parts (300)"), "rate_limit"],
    ["MEMORY_LIMIT_EXCEEDED", server(241, "Memory limit (total) exceeded"), "rate_limit"],
    ["TIMEOUT_EXCEEDED", server(159, "Timeout exceeded"), "timeout"],
    ["NETWORK_ERROR", server(210, "Connection reset by peer"), "connection"],
    ["DEADLOCK_AVOIDED", server(473, "Deadlock avoided"), "conflict"],
    [
      "chdb folder held by another process",
      chdb(76, "Cannot lock file /p/w/status. Another server instance in same directory is already running."),
      "lock",
    ],
    [
      "chdb connection error wrapping the lock",
      Object.assign(new Error("Failed to create connection for path '/p/w'"), {
        code: "CHDB_CONNECTION",
        cause: new Error(
          "Code: 76. DB::Exception: Cannot lock file /p/w/status. Another server instance in same directory is already running.",
        ),
      }),
      "lock",
    ],
    ["a socket failure only in the client's words", new Error("socket hang up"), "connection"],
    ["a timeout only in the client's words", new Error("Timeout error."), "timeout"],
    ["SYNTAX_ERROR", server(62, "Syntax error"), "unknown"],
    ["a plain error", new Error("something else"), "unknown"],
  ])("%s → %s", (_name, error, kind) => expect(clickhouseErrorKind(error)).toBe(kind));
});

describe("alreadyExists", () => {
  it("tells a name taken (how the staging protocol sees a race) from other errors", () => {
    expect(alreadyExists(server(57, "Table raw.l already exists."))).toBe(true);
    expect(alreadyExists(chdb(82, "Database raw already exists."))).toBe(true);
    expect(alreadyExists(server(60, "Table raw.x does not exist."))).toBe(false);
  });
});

describe("wrapClickHouseError", () => {
  it("keeps the first line, the cause and the table", () => {
    const cause = server(60, "Table raw.x does not exist. (version 26.7.1.1)\nStack trace: ...");
    expect(wrapClickHouseError(cause, "writing raw.x failed", { table: "raw.x" })).toMatchObject({
      code: "SL305",
      message: "writing raw.x failed: Table raw.x does not exist.",
      table: "raw.x",
      cause,
      retryable: false,
    });
  });

  it.each<[string, Error, string, boolean]>([
    ["too many parts: SL310, retryable", server(252, "Too many parts"), "SL310", true],
    ["a timeout: SL311, retryable", server(159, "Timeout exceeded"), "SL311", true],
    ["unreachable server: SL308, retryable", node("ECONNREFUSED"), "SL308", true],
    ["connection reset: SL308, retryable", node("ECONNRESET"), "SL308", true],
    ["refused login: SL309, not retryable", server(516, "Authentication failed"), "SL309", false],
    ["chdb folder held: SL306, retryable", chdb(76, "Cannot lock file /p/status. Another server instance"), "SL306", true],
    ["bad data: SL300", server(349, "Cannot convert NULL"), "SL300", false],
    ["anything else: SL305", server(62, "Syntax error"), "SL305", false],
  ])("%s", (_name, error, code, retryable) => {
    expect(wrapClickHouseError(error, "x")).toMatchObject({ code, retryable });
  });

  it("takes an error of no known kind while connecting as a failed connection", () => {
    expect(wrapClickHouseError(new Error("something else"), "connecting", { connecting: true })).toMatchObject({
      code: "SL308",
      retryable: true,
    });
  });

  it("gives hints for what a user can fix, and keeps SqlloadErrors as they are", () => {
    expect(wrapClickHouseError(server(497, "denied"), "x").hint).toMatch(/GRANT|CREATE TABLE/);
    expect(wrapClickHouseError(server(48, "EXCHANGE"), "x").hint).toMatch(/Atomic/);
    const own = new SqlloadError("SL302", "changed");
    expect(wrapClickHouseError(own, "x")).toBe(own);
  });
});
