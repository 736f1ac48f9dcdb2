import { describe, expect, it } from "vitest";
import { errorKind, toSqlloadError } from "./errors.js";

/** What node-postgres throws: an Error with the SQLSTATE in `code`. */
const pgError = (code: string, message = "boom") => Object.assign(new Error(message), { code });

describe("errorKind and toSqlloadError", () => {
  const cases: [string, unknown, "source" | "target", string, boolean][] = [
    [
      "connection refused (target)",
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }),
      "target",
      "SL308",
      true,
    ],
    [
      "connection refused (source)",
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }),
      "source",
      "SL304",
      true,
    ],
    ["host not found", Object.assign(new Error("getaddrinfo ENOTFOUND db"), { code: "ENOTFOUND" }), "target", "SL308", true],
    ["connection reset", Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }), "target", "SL308", true],
    ["terminated", new Error("Connection terminated unexpectedly"), "target", "SL308", true],
    ["08006 connection_failure", pgError("08006"), "target", "SL308", true],
    ["53300 too_many_connections", pgError("53300"), "target", "SL308", true],
    ["57P01 admin_shutdown", pgError("57P01"), "source", "SL304", true],
    ["57P03 cannot_connect_now", pgError("57P03"), "target", "SL308", true],
    ["28P01 invalid_password", pgError("28P01"), "target", "SL309", false],
    ["3D000 no such database", pgError("3D000"), "source", "SL309", false],
    ["55P03 lock_not_available", pgError("55P03"), "target", "SL306", true],
    ["40P01 deadlock", pgError("40P01"), "target", "SL305", true],
    ["40001 serialization_failure", pgError("40001"), "source", "SL304", true],
    ["42P01 undefined_table (source)", pgError("42P01"), "source", "SL206", false],
    ["42P01 undefined_table (target)", pgError("42P01"), "target", "SL305", false],
    ["42703 undefined_column", pgError("42703"), "source", "SL209", false],
    ["22001 value too long", pgError("22001"), "target", "SL300", false],
    ["22003 numeric out of range", pgError("22003"), "target", "SL300", false],
    ["23502 not null", pgError("23502"), "target", "SL300", false],
    ["23505 unique_violation", pgError("23505"), "target", "SL301", false],
    ["21000 ON CONFLICT twice", pgError("21000"), "target", "SL301", false],
    ["42501 insufficient_privilege", pgError("42501"), "source", "SL304", false],
    ["57014 query_canceled", pgError("57014"), "source", "SL307", false],
    ["XX000 internal", pgError("XX000"), "target", "SL305", false],
    ["a plain Error", new Error("something"), "source", "SL304", false],
    ["a string", "weird", "target", "SL305", false],
  ];

  it.each(cases)("%s", (_, error, role, code, retryable) => {
    const mapped = toSqlloadError(error, { role, action: "doing it", table: "raw.t" });
    expect(mapped.code).toBe(code);
    expect(mapped.retryable).toBe(retryable);
    expect(mapped.table).toBe("raw.t");
    expect(mapped.cause).toBe(error);
  });

  it("keeps SQLSTATE and detail in the message and redacts connection strings", () => {
    const error = Object.assign(new Error("could not reach postgresql://u:pw@h/db"), {
      code: "08001",
      detail: "password=pw2 used",
    });
    const mapped = toSqlloadError(error, { role: "target", action: "connecting" });
    expect(mapped.message).toBe("connecting: could not reach postgresql://u:***@h/db [08001] (password=*** used)");
  });

  it("passes SqlloadErrors through", async () => {
    const { SqlloadError } = await import("@sqlload/core");
    const original = new SqlloadError("SL306", "locked");
    expect(toSqlloadError(original, { role: "target", action: "x" })).toBe(original);
  });

  it("classifies unknown SQLSTATEs as unknown", () => {
    expect(errorKind(pgError("P0001"))).toBe("unknown");
    expect(errorKind(null)).toBe("unknown");
  });

  it("gives a refused login its own code and this connector's hint", () => {
    const mapped = toSqlloadError(pgError("28P01", 'password authentication failed for user "u"'), {
      role: "target",
      action: "connecting",
    });
    expect(mapped.code).toBe("SL309");
    expect(mapped.hint).toMatch(/`PG\*` variables/);
  });
});
