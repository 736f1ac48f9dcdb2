import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeNumeric, decodeUuid, encodeNumeric, encodeUuid, scaleNumeric } from "./copy-binary.js";

const roundTrip = (text: string) => {
  const encoded = encodeNumeric(text);
  if (!encoded) throw new Error(`not encoded: ${text}`);
  return decodeNumeric(new DataView(encoded.buffer, encoded.byteOffset, encoded.byteLength), 0);
};

describe("numeric", () => {
  it.each([
    ["0", "0"],
    ["-0", "0"],
    ["0.00", "0.00"],
    ["1", "1"],
    ["-1.50", "-1.50"],
    ["10000", "10000"],
    ["123456789012345678901234567890.123456789012345678", "123456789012345678901234567890.123456789012345678"],
    ["0.000000000000000000001", "0.000000000000000000001"],
    ["007.5", "7.5"],
    ["9999.9999", "9999.9999"],
    ["5.", "5"],
    ["+5", "5"],
    [".5", "0.5"],
    ["-.5", "-0.5"],
    ["00.0100", "0.0100"],
    [" 12.5 ", "12.5"],
    ["12345678.87654321", "12345678.87654321"],
    ["100000000", "100000000"],
    ["0.00010000", "0.00010000"],
    ["NaN", "NaN"],
    ["Infinity", "Infinity"],
    ["-Infinity", "-Infinity"],
  ])("%s", (input, output) => {
    expect(roundTrip(input)).toBe(output);
  });

  it("refuses what is not a decimal number", () => {
    for (const bad of ["", "1e5", "abc", "1.2.3", ".", "-", "--1", "1-2", "0x10", "12a", "1,5"]) {
      expect(encodeNumeric(bad), bad).toBeUndefined();
    }
  });

  it("round-trips any decimal", () => {
    const digits = (max: number) => fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 1, maxLength: max });
    fc.assert(
      fc.property(fc.boolean(), digits(40), fc.option(digits(40), { nil: undefined }), (negative, int, frac) => {
        const canonicalInt = int.replace(/^0+(?=\d)/, "");
        const text = `${negative ? "-" : ""}${canonicalInt}${frac === undefined ? "" : `.${frac}`}`;
        const zero = !/[1-9]/.test(text);
        expect(roundTrip(text)).toBe(zero ? text.replace(/^-/, "") : text);
      }),
    );
  });
});

describe("numeric scaled to an integer", () => {
  const scaled = (text: string, scale: number) => {
    const encoded = encodeNumeric(text) as Buffer;
    return scaleNumeric(new DataView(encoded.buffer, encoded.byteOffset, encoded.byteLength), 0, scale);
  };

  it.each([
    ["0", 2, 0],
    ["-1.50", 2, -150],
    ["12.345", 3, 12345],
    ["12.3400", 2, 1234],
    ["0.0001", 4, 1],
    ["0.00010000", 4, 1],
    ["10000", 0, 10000],
    ["99999999.99", 2, 9999999999],
    ["-123456789012.345", 3, -123456789012345],
    ["9007199254740991", 0, 2 ** 53 - 1],
    ["7", 6, 7_000_000],
  ])("%s at scale %i is %i", (text, scale, expected) => {
    expect(scaled(text, scale)).toBe(expected);
  });

  it.each([
    ["1.005", 2],
    ["0.00001", 4],
    ["9007199254740992", 0],
    ["123456789012345678901234567890", 2],
    ["NaN", 2],
    ["Infinity", 0],
    ["-Infinity", 0],
  ])("%s at scale %i is NaN: rounded, past a double, or not a number", (text, scale) => {
    expect(scaled(text, scale)).toBeNaN();
  });

  it("agrees with exact arithmetic on any decimal", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.nat(8), fc.nat(8), (unscaled, digits, scale) => {
        const negative = unscaled < 0n;
        const abs = (negative ? -unscaled : unscaled).toString().padStart(digits + 1, "0");
        const text = `${negative ? "-" : ""}${abs.slice(0, abs.length - digits)}${digits ? `.${abs.slice(abs.length - digits)}` : ""}`;
        // The value times 10^scale, when that is an integer.
        const shift = scale - digits;
        const exact =
          shift >= 0
            ? unscaled * 10n ** BigInt(shift)
            : unscaled % 10n ** BigInt(-shift) === 0n
              ? unscaled / 10n ** BigInt(-shift)
              : undefined;
        const fits = exact !== undefined && (exact < 0n ? -exact : exact) < 2n ** 53n;
        const got = scaled(text, scale);
        if (fits) expect(got).toBe(Number(exact));
        else expect(got).toBeNaN();
      }),
    );
  });
});

describe("uuid", () => {
  it("encodes the forms Postgres accepts and decodes lower case with dashes", () => {
    const out = Buffer.alloc(16);
    for (const form of ["A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "{a0eebc999c0b4ef8bb6d6bb9bd380a11}"]) {
      expect(encodeUuid(form, out, 0)).toBe(true);
      expect(decodeUuid(out, 0)).toBe("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
    }
    expect(encodeUuid("not-a-uuid", out, 0)).toBe(false);
  });
});
