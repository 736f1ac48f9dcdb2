import type { LogicalType } from "@sqlload/core";
import type { Capability, Skips } from "../capabilities.js";

/** A value written in a round trip; `needs` names what a connector may skip for it alone. */
export interface TypeValue {
  readonly value: unknown;
  readonly needs?: Capability;
}

export interface TypeCase {
  readonly title: string;
  readonly type: LogicalType;
  /** Values in the form `batchFromRows` takes; NULL is added to every case. */
  readonly values: readonly (unknown | TypeValue)[];
  readonly needs?: readonly Capability[];
}

const v = (value: unknown, needs: Capability): TypeValue => ({ value, needs });

export function isTypeValue(value: unknown): value is TypeValue {
  return !!value && typeof value === "object" && "value" in value && "needs" in value;
}

/**
 * Every logical type with the values that break naive mappings: both ends of each integer
 * range, 64-bit integers past 2^53, floats that float32 rounds, exact decimals with trailing
 * zeros, text that Unicode normalization or a NUL-unsafe client would change, microseconds
 * before the epoch, and lists holding NULLs.
 */
export const typeCases: readonly TypeCase[] = [
  { title: "boolean", type: { kind: "boolean" }, values: [true, false] },
  { title: "int16", type: { kind: "int16" }, values: [-32768, 32767, 0, -1] },
  { title: "int32", type: { kind: "int32" }, values: [-2147483648, 2147483647, 0] },
  { title: "int64", type: { kind: "int64" }, values: [-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 0n] },
  {
    title: "float32",
    type: { kind: "float32" },
    values: [
      1.5,
      -0.25,
      0.1,
      3.4028234663852886e38,
      0,
      v(Number.POSITIVE_INFINITY, "float.infinity"),
      v(Number.NaN, "float.nan"),
    ],
  },
  {
    title: "float64",
    type: { kind: "float64" },
    values: [
      0.1,
      -1e308,
      5e-324,
      2 ** 53 + 2,
      v(Number.POSITIVE_INFINITY, "float.infinity"),
      v(Number.NEGATIVE_INFINITY, "float.infinity"),
      v(Number.NaN, "float.nan"),
    ],
  },
  {
    title: "decimal(18,3)",
    type: { kind: "decimal", precision: 18, scale: 3 },
    values: ["123456789012345.678", "-0.001", "0.000", "1.500", "-999999999999999.999"],
  },
  {
    title: "decimal(38,10)",
    type: { kind: "decimal", precision: 38, scale: 10 },
    values: ["1234567890123456789012345678.1234567890", "-0.0000000001", "0"],
  },
  { title: "decimal(5,0)", type: { kind: "decimal", precision: 5, scale: 0 }, values: ["99999", "-99999", "0"] },
  {
    title: "text",
    type: { kind: "text" },
    values: [
      "",
      "héllo wörld",
      "e\u0301 vs \u00e9", // must come back unnormalized
      "\u{1f600}\u{10ffff}\ufffd\ue000",
      "tab\tnewline\ncr\r'single' \"double\" \\backslash",
      "%_ like wildcards, $1 placeholders, ? marks",
      "x".repeat(10_000),
    ],
  },
  {
    title: "bytes",
    type: { kind: "bytes" },
    values: [new Uint8Array([0, 255, 1, 0]), new Uint8Array([]), new Uint8Array([92, 120, 48])],
  },
  {
    title: "uuid",
    type: { kind: "uuid" },
    values: [
      "123e4567-e89b-12d3-a456-426614174000",
      "00000000-0000-0000-0000-000000000000",
      "ffffffff-ffff-ffff-ffff-ffffffffffff",
    ],
  },
  {
    title: "json",
    type: { kind: "json" },
    values: ['{"a":[1,2,{"b":null}],"ü":"😀"}', "[]", '"text"', "12.5", "true", '{"z":1,"a":2}'],
  },
  {
    title: "date",
    type: { kind: "date" },
    values: [
      "1970-01-01",
      "1969-12-31",
      "2024-02-29",
      "1900-03-01",
      v("0001-01-01", "temporal.wideRange"),
      v("9999-12-31", "temporal.wideRange"),
    ],
  },
  { title: "time", type: { kind: "time" }, values: ["00:00:00", "23:59:59.999999", "12:34:56.000001"] },
  {
    title: "timestamp",
    type: { kind: "timestamp" },
    values: [
      "1970-01-01T00:00:00Z",
      "1969-12-31T23:59:59.999999Z",
      "2026-10-12T16:00:00.123456Z",
      "1900-01-01T00:00:00.000001Z",
      "2262-04-11T23:47:16.854775Z",
      v("0001-01-01T00:00:00Z", "temporal.wideRange"),
      v("9999-12-31T23:59:59.999999Z", "temporal.wideRange"),
    ],
  },
  {
    title: "timestamptz",
    type: { kind: "timestamptz" },
    values: [
      "2026-10-12T16:00:00.654321+02:00",
      "2026-10-12T16:00:00.654321-09:30",
      "1969-12-31T23:59:59.999999Z",
      "1970-01-01T00:00:00Z",
    ],
  },
  {
    title: "list<int64>",
    type: { kind: "list", element: { kind: "int64" } },
    values: [[1n, null, 2n ** 60n + 1n], [], [-(2n ** 63n)]],
  },
  {
    title: "list<text>",
    type: { kind: "list", element: { kind: "text" } },
    values: [["a", null, "\u{1f600}", ""], [], ['"quoted", {braces}']],
  },
  {
    title: "list<decimal(10,2)>",
    type: { kind: "list", element: { kind: "decimal", precision: 10, scale: 2 } },
    values: [["1.25", null, "-0.01"], ["99999999.99"]],
  },
  {
    title: "list<timestamptz>",
    type: { kind: "list", element: { kind: "timestamptz" } },
    values: [["1969-12-31T23:59:59.999999Z", "2026-10-12T16:00:00.000001Z"], [null]],
  },
  { title: "list<boolean>", type: { kind: "list", element: { kind: "boolean" } }, values: [[true, false, null], []] },
  {
    title: "list<list<date>>",
    type: { kind: "list", element: { kind: "list", element: { kind: "date" } } },
    values: [[["2024-02-29"], [], null], [[null]]],
    needs: ["type.nestedList"],
  },
];

/** What each case needs: its type, plus anything the case itself names. */
export function typeCaseNeeds(c: TypeCase): Capability[] {
  return [`type.${c.type.kind}` as Capability, ...(c.needs ?? [])];
}

/** The values a connector takes part in, and those left out by its skips (for the report). */
export function typeCaseValues(
  c: TypeCase,
  skips: Skips | undefined,
): { values: unknown[]; left: { value: unknown; capability: Capability; reason: string }[] } {
  const values: unknown[] = [];
  const left: { value: unknown; capability: Capability; reason: string }[] = [];
  for (const value of c.values) {
    if (!isTypeValue(value)) values.push(value);
    else if (value.needs && skips?.[value.needs])
      left.push({ value: value.value, capability: value.needs, reason: skips[value.needs]! });
    else values.push(value.value);
  }
  return { values, left };
}
