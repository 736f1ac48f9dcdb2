import { describe, expect, it } from "vitest";
import { checkSkips, skipFor } from "./capabilities.js";
import { canonicalDecimal, canonicalKey, normalizeValue } from "./normalize.js";

describe("normalizeValue", () => {
  it.each([
    [{ kind: "int64" }, "9007199254740993", 9007199254740993n],
    [{ kind: "int64" }, 42, 42n],
    [{ kind: "int32" }, 7n, 7],
    [{ kind: "boolean" }, 1, true],
    [{ kind: "float32" }, 0.1, Math.fround(0.1)],
    [{ kind: "float64" }, "NaN", Number.NaN],
    [{ kind: "float64" }, "-Infinity", Number.NEGATIVE_INFINITY],
    [{ kind: "decimal", precision: 10, scale: 3 }, "-001.500", "-1.5"],
    [{ kind: "bytes" }, new Uint8Array([0, 171]), "00ab"],
    [{ kind: "bytes" }, "\\x00AB", "00ab"],
    [{ kind: "uuid" }, "ABCDEF00-0000-0000-0000-000000000000", "abcdef00-0000-0000-0000-000000000000"],
    [{ kind: "json" }, '{"b":1,"a":[true]}', { a: [true], b: 1 }],
    [{ kind: "date" }, "2024-02-29", 19782],
    [{ kind: "date" }, "19782", 19782],
    [{ kind: "time" }, "00:00:01.5", 1_500_000n],
    [{ kind: "timestamptz" }, "1970-01-01T01:00:00+01:00", 0n],
    [{ kind: "timestamp" }, "-1", -1n],
    [{ kind: "list", element: { kind: "int64" } }, '["9007199254740993", null]', [9007199254740993n, null]],
    [{ kind: "text" }, "e\u0301", "e\u0301"],
  ] as const)("%#: %o reads its input as expected", (type, input, expected) => {
    expect(normalizeValue(type, input)).toEqual(expected);
  });

  it("refuses a 64-bit integer that went through a JS number", () => {
    expect(() => normalizeValue({ kind: "int64" }, 2 ** 53 + 2)).toThrow(/rounded through a JS number/);
  });

  it("refuses values of the wrong kind", () => {
    expect(() => normalizeValue({ kind: "text" }, 1)).toThrow(/cannot read number 1 as text/);
    expect(() => normalizeValue({ kind: "float64" }, "abc")).toThrow();
  });
});

describe("canonicalDecimal and canonicalKey", () => {
  it("ignore trailing zeros and the sign of zero, and JSON key order", () => {
    expect(["0.000", "-0", "+0.0", "000"].map(canonicalDecimal)).toEqual(["0", "0", "0", "0"]);
    expect(canonicalDecimal("12.3400")).toBe("12.34");
    expect(canonicalKey({ b: 1n, a: Number.NaN })).toBe(canonicalKey({ a: Number.NaN, b: 1n }));
  });
});

describe("skips", () => {
  it("must name a known capability and give a reason", () => {
    expect(() => checkSkips("x", { merge: "no unique keys in this engine" })).not.toThrow();
    expect(() => checkSkips("x", { marge: "typo" } as never)).toThrow(/unknown capability "marge"/);
    expect(() => checkSkips("x", { merge: " " })).toThrow(/needs a reason/);
    expect(skipFor({ "type.list": "no arrays" }, ["type.int64", "type.list"])).toEqual({
      capability: "type.list",
      reason: "no arrays",
    });
  });
});
