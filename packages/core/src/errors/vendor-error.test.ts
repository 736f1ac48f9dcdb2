import { describe, expect, it } from "vitest";
import { SqlloadError } from "./sqlload-error.js";
import { nodeSocketErrorKind, toVendorSqlloadError, vendorError, vendorErrorKinds } from "./vendor-error.js";

describe("vendorError", () => {
  const context = { action: "committing raw.app__orders", detail: "boom", table: "raw.app__orders" };

  it.each([
    ["connection", "target", "SL308", true],
    ["connection", "source", "SL304", true],
    ["auth", "target", "SL309", false],
    ["permission", "source", "SL304", false],
    ["permission", "target", "SL305", false],
    ["missing_table", "source", "SL206", false],
    ["missing_table", "target", "SL305", false],
    ["missing_column", "source", "SL209", false],
    ["lock", "target", "SL306", true],
    ["conflict", "target", "SL305", true],
    ["rate_limit", "target", "SL310", true],
    ["bad_data", "target", "SL300", false],
    ["duplicate_key", "target", "SL301", false],
    ["timeout", "source", "SL311", true],
    ["canceled", "target", "SL307", false],
    ["unknown", "target", "SL305", false],
  ] as const)("%s on a %s is %s, retryable %s", (kind, role, code, retryable) => {
    const error = vendorError(kind, new Error("x"), { ...context, role });
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    expect(error.message).toBe("committing raw.app__orders: boom");
    expect(error.table).toBe("raw.app__orders");
  });

  it("gives every kind a meaning", () => {
    for (const kind of vendorErrorKinds)
      expect(vendorError(kind, null, { ...context, role: "target" })).toBeInstanceOf(SqlloadError);
  });

  it("prefers the connector's hint over the kind's", () => {
    const error = vendorError("auth", null, { ...context, role: "target", hint: "Check `keyfile`." });
    expect(error.hint).toBe("Check `keyfile`.");
  });
});

describe("toVendorSqlloadError", () => {
  const classify = (e: unknown) => ((e as { code?: string }).code === "42P01" ? "missing_table" : "unknown") as const;

  it("lets SqlloadErrors through unchanged", () => {
    const original = new SqlloadError("SL306", "locked");
    expect(toVendorSqlloadError(original, classify, { role: "target", action: "x" })).toBe(original);
  });

  it("classifies with the connector's table and scrubs the detail", () => {
    const error = Object.assign(new Error('relation "t" does not exist at postgres://u:secret@h'), { code: "42P01" });
    const mapped = toVendorSqlloadError(error, classify, {
      role: "source",
      action: "reading t",
      scrub: (text) => text.replace(/:secret@/, ":***@"),
    });
    expect(mapped.code).toBe("SL206");
    expect(mapped.message).toBe('reading t: relation "t" does not exist at postgres://u:***@h [42P01]');
  });

  it("takes Node socket failures as connection errors, also behind a cause or inside an AggregateError", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(nodeSocketErrorKind(refused)).toBe("connection");
    expect(nodeSocketErrorKind(new Error("wrapped", { cause: refused }))).toBe("connection");
    expect(nodeSocketErrorKind(new AggregateError([refused]))).toBe("connection");
    expect(nodeSocketErrorKind(new Error("syntax"))).toBeUndefined();
    expect(toVendorSqlloadError(refused, classify, { role: "target", action: "connecting" }).code).toBe("SL308");
  });
});
