import { describe, expect, it } from "vitest";
import { bigqueryErrorKind, retryableJobError, scrubSecrets, toBigQueryError } from "./errors.js";

/** What the client throws: an ApiError with `errors[].reason` and the HTTP status in `code`. */
const apiError = (reason: string, code?: number, message = "boom") =>
  Object.assign(new Error(message), { errors: [{ reason, message }], ...(code ? { code } : {}) });

describe("BigQuery errors", () => {
  const cases: [string, unknown, string, string, boolean][] = [
    ["rateLimitExceeded", apiError("rateLimitExceeded", 403), "rate_limit", "SL310", true],
    ["quotaExceeded", apiError("quotaExceeded", 403), "rate_limit", "SL310", true],
    ["backendError", apiError("backendError", 500), "connection", "SL308", true],
    ["internalError", apiError("internalError", 500), "connection", "SL308", true],
    [
      "concurrent update abort",
      apiError("invalidQuery", 400, "Transaction is aborted due to concurrent update against table p:d.t"),
      "conflict",
      "SL305",
      true,
    ],
    [
      "could not serialize",
      apiError("invalidQuery", 400, "Could not serialize access to table p:d.t due to concurrent update"),
      "conflict",
      "SL305",
      true,
    ],
    ["timeout", apiError("timeout"), "timeout", "SL311", true],
    ["authError", apiError("authError", 401), "auth", "SL309", false],
    [
      "a key that cannot sign",
      Object.assign(new Error("error:1E08010C:DECODER routines::unsupported"), { code: "ERR_OSSL_UNSUPPORTED" }),
      "auth",
      "SL309",
      false,
    ],
    [
      "no Application Default Credentials",
      new Error("Could not load the default credentials. Browse to https://cloud.google.com/docs/authentication"),
      "auth",
      "SL309",
      false,
    ],
    ["a refused grant", new Error("invalid_grant: Invalid JWT Signature."), "auth", "SL309", false],
    ["401 without reason", Object.assign(new Error("no"), { code: 401 }), "auth", "SL309", false],
    ["accessDenied", apiError("accessDenied", 403), "permission", "SL305", false],
    ["notFound", apiError("notFound", 404), "missing_table", "SL305", false],
    ["invalid value", apiError("invalid", 400), "bad_data", "SL300", false],
    ["stopped", apiError("stopped"), "canceled", "SL307", false],
    ["invalidQuery", apiError("invalidQuery", 400, "Syntax error"), "unknown", "SL305", false],
    ["socket refused", Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }), "connection", "SL308", true],
  ];
  for (const [title, error, kind, code, retryable] of cases) {
    it(`${title} is ${kind}: ${code}${retryable ? ", retryable" : ""}`, () => {
      if (!(error as { code?: unknown }).code || typeof (error as { code?: unknown }).code === "number") {
        expect(bigqueryErrorKind(error)).toBe(kind);
      }
      const wrapped = toBigQueryError(error, "committing raw.t", "raw.t");
      expect(wrapped.code).toBe(code);
      expect(wrapped.retryable).toBe(retryable);
    });
  }

  it("tries a job again only for causes that pass", () => {
    expect(retryableJobError(apiError("rateLimitExceeded"))).toBe(true);
    expect(retryableJobError(apiError("backendError"))).toBe(true);
    expect(retryableJobError(apiError("invalidQuery", 400, "Transaction is aborted due to concurrent update"))).toBe(true);
    expect(retryableJobError(Object.assign(new Error("unavailable"), { code: 503 }))).toBe(true);
    expect(retryableJobError(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }))).toBe(true);
    expect(retryableJobError(apiError("invalid"))).toBe(false);
    expect(retryableJobError(apiError("accessDenied", 403))).toBe(false);
  });

  it("says which setting to raise when a job would bill more than maximum_bytes_billed", () => {
    const error = apiError("bytesBilledLimitExceeded", 400, "Query exceeded limit for bytes billed: 1000000.");
    const wrapped = toBigQueryError(error, "committing raw.t", "raw.t");
    expect(wrapped).toMatchObject({ code: "SL305", retryable: false });
    expect(wrapped.hint).toMatch(/maximum_bytes_billed/);
    expect(toBigQueryError(apiError("invalid"), "committing raw.t").hint).not.toMatch(/maximum_bytes_billed/);
  });

  it("never shows a token or a key", () => {
    expect(scrubSecrets("Authorization: Bearer ya29.secret-token x")).toBe("Authorization: Bearer [redacted] x");
    expect(scrubSecrets("-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----")).toBe("[redacted key]");
  });
});
