import { describe, expect, it } from "vitest";
import { databricksError, databricksErrorKind, errorClassOf, scrubber } from "./errors.js";

/** The driver's own class name (it sets no `name`), as its staging operations throw it. */
class StagingError extends Error {}

const statusError = (message: string) => Object.assign(new Error(message), { name: "Status Error", code: -1 });

describe("databricksErrorKind", () => {
  const cases: readonly [string, string][] = [
    ["[TABLE_OR_VIEW_NOT_FOUND] The table or view `c`.`s`.`t` cannot be found. SQLSTATE: 42P01", "missing_table"],
    ["[SCHEMA_NOT_FOUND] The schema `c`.`s` cannot be found. SQLSTATE: 42704", "missing_table"],
    ["[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column `x` cannot be resolved. SQLSTATE: 42703", "missing_column"],
    ["[DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT] Files were added by a concurrent update. SQLSTATE: 2D521", "conflict"],
    ["[DELTA_CONCURRENT_DELETE_READ] This transaction attempted to read files deleted concurrently.", "conflict"],
    ["[CAST_INVALID_INPUT] The value 'x' of the type STRING cannot be cast to BIGINT. SQLSTATE: 22018", "bad_data"],
    ["[DELTA_REPLACE_WHERE_MISMATCH] Written data does not conform to the replaceWhere condition.", "bad_data"],
    ["[DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE] Cannot perform Merge.", "duplicate_key"],
    ["[PERMISSION_DENIED] User does not have MODIFY on Table. SQLSTATE: 42501", "permission"],
    ["[REQUEST_LIMIT_EXCEEDED] Too many requests.", "rate_limit"],
    ["[QUERY_EXECUTION_TIMEOUT_EXCEEDED] The query was cancelled due to exceeding the timeout.", "timeout"],
    ["[OPERATION_CANCELED] The operation was canceled.", "canceled"],
    ["[WAREHOUSE_STOPPED] The warehouse is stopped.", "connection"],
    ["Something went wrong SQLSTATE: 42P01", "missing_table"],
    ["[SOMETHING_NEW] unheard of", "unknown"],
  ];
  for (const [message, kind] of cases) {
    it(`${errorClassOf(message) ?? message.slice(-20)} is ${kind}`, () => {
      expect(databricksErrorKind(statusError(message))).toBe(kind);
    });
  }

  it("takes the driver's authentication failures as auth", () => {
    expect(databricksErrorKind(Object.assign(new Error("Request failed"), { name: "AuthenticationError" }))).toBe("auth");
    expect(databricksErrorKind(new Error("Invalid access token."))).toBe("auth");
    expect(databricksErrorKind(new Error("Received a response with a bad HTTP status code: 401"))).toBe("auth");
    expect(databricksErrorKind(Object.assign(new Error("bad status"), { statusCode: 429 }))).toBe("rate_limit");
    expect(databricksErrorKind(Object.assign(new Error("bad status"), { statusCode: 503 }))).toBe("connection");
  });

  const stagingCases: readonly [string, string][] = [
    ["HTTP error 503 Service Unavailable", "connection"],
    ["HTTP error 500 Internal Server Error", "connection"],
    ["HTTP error 429 Too Many Requests", "rate_limit"],
    ["HTTP error 504 Gateway Timeout", "timeout"],
    ["HTTP error 403 Forbidden", "permission"],
    ["Staging path not a subset of allowed local paths.", "unknown"],
  ];
  for (const [message, kind] of stagingCases) {
    it(`a staging upload answered "${message}" is ${kind}`, () => {
      expect(databricksErrorKind(new StagingError(message))).toBe(kind);
    });
  }
});

describe("databricksError", () => {
  it("gives the kind's code and hides the token", () => {
    const scrub = scrubber(["dapi-secret-token"]);
    const error = databricksError(
      statusError("[PERMISSION_DENIED] token dapi-secret-token may not write. SQLSTATE: 42501"),
      "committing raw.t",
      {
        scrub,
      },
    );
    expect(error.code).toBe("SL305");
    expect(error.retryable).toBe(false);
    expect(error.message).not.toContain("dapi-secret-token");
    expect(databricksError(new Error("[UNAUTHENTICATED] no"), "connecting", { scrub }).code).toBe("SL309");
    expect(databricksError(statusError("[DELTA_CONCURRENT_APPEND] x"), "committing", { scrub }).retryable).toBe(true);
  });

  it("scrubs bearer headers whatever the token", () => {
    expect(scrubber([])("sent Authorization: Bearer abc.def")).toBe("sent Authorization: Bearer ***");
  });
});
