import { describe, expect, it } from "vitest";
import { snowflakeErrorKind, wrapSnowflakeError } from "./errors.js";

describe("snowflakeErrorKind", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["server code as text", { code: "002003", sqlState: "42S02" }, "missing_table"],
    ["invalid identifier", { code: "000904" }, "missing_column"],
    ["wrong password", { code: 390100 }, "auth"],
    ["bad key-pair JWT", { code: "390144" }, "auth"],
    ["expired OAuth token", { code: "390318" }, "auth"],
    ["expired session token", { code: "390114" }, "connection"],
    ["driver could not connect", { code: 401001 }, "connection"],
    ["request failed", { code: 402001 }, "connection"],
    ["insufficient privileges", { code: "003001" }, "permission"],
    ["table lock wait", { code: "000625" }, "lock"],
    ["statement timeout", { code: "000630" }, "timeout"],
    ["canceled", { code: "000604" }, "canceled"],
    ["numeric value not recognized", { code: "100038", sqlState: "22018" }, "bad_data"],
    ["NULL into NOT NULL", { code: "100072" }, "bad_data"],
    ["merge with duplicate source rows", { code: "100090" }, "duplicate_key"],
    ["private key passphrase wrong", { code: "ERR_OSSL_BAD_DECRYPT" }, "auth"],
    ["too many requests", { response: { status: 429 } }, "rate_limit"],
    ["service unavailable", { response: { status: 503 } }, "connection"],
    ["unknown code, data SQLSTATE", { code: "999999", sqlState: "22003" }, "bad_data"],
    ["nothing known", { message: "?" }, "unknown"],
  ];
  for (const [title, error, kind] of cases) {
    it(`${title} → ${kind}`, () => expect(snowflakeErrorKind(error)).toBe(kind));
  }

  it("keeps tokens and passwords out of the message", () => {
    const error = wrapSnowflakeError(
      Object.assign(new Error('login failed: {"password":"hunter2"} Authorization: Snowflake Token="abc"'), { code: "390100" }),
      "connecting failed",
    );
    expect(error.code).toBe("SL309");
    expect(error.message).not.toMatch(/hunter2|abc"/);
  });
});
