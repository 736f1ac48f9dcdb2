import { withUtf8 } from "@sqlload/conformance";
import { batchFromRows, type Column } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { encodeNative, scaledDecimal, wireStructure } from "./clickhouse-native.js";

/** The Native block the encoder should write: counts, then each column's name, type and data. */
function block(rows: number, columns: readonly [name: string, type: string, data: readonly number[]][]): number[] {
  const text = (s: string) => [Buffer.byteLength(s), ...Buffer.from(s)];
  return [columns.length, rows, ...columns.flatMap(([name, type, data]) => [...text(name), ...text(type), ...data])];
}

const le = (value: number, bytes: number) =>
  [...Buffer.alloc(8).fill(0)].map((_, i) => Math.floor(value / 256 ** i) % 256).slice(0, bytes);

describe("Native blocks", () => {
  it("writes counts, names and wire types, then each column whole: its null map, then every row's value", () => {
    const schema: Column[] = [
      { name: "i", type: { kind: "int32" }, nullable: true },
      { name: "s", type: { kind: "text" }, nullable: true },
      { name: "b", type: { kind: "boolean" }, nullable: true },
    ];
    const data = encodeNative(
      batchFromRows(schema, [
        { i: 258, s: "é", b: true },
        { i: null, s: null, b: null },
        { i: -1, s: "", b: false },
      ]),
    );
    expect([...data]).toEqual(
      block(3, [
        ["i", "Nullable(Int32)", [0, 1, 0, ...le(258, 4), 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]],
        ["s", "Nullable(String)", [0, 1, 0, 2, 0xc3, 0xa9, 0, 0]],
        ["b", "Nullable(Bool)", [0, 1, 0, 1, 0, 0]],
      ]),
    );
    expect(wireStructure(schema)).toBe("`i` Nullable(Int32), `s` Nullable(String), `b` Nullable(Bool)");
  });

  it("encodes text as UTF-8 exactly as Node does, at every length and for every kind of character", () => {
    const schema: Column[] = [{ name: "s", type: { kind: "text" }, nullable: false }];
    const texts = [
      "",
      "a".repeat(42),
      "a".repeat(43),
      "é".repeat(42), // 84 bytes, still a one-byte length
      "€".repeat(42), // 126 bytes
      "€".repeat(43), // 129 bytes: a two-byte length
      "\u{1F600}x", // a surrogate pair
      "a\ud800b", // a lone surrogate: U+FFFD, as Node writes it
      "\u07ff\u0800\uffff\u0080\u007f",
      "x".repeat(20_000),
    ];
    const data = encodeNative(
      batchFromRows(
        schema,
        texts.map((s) => ({ s })),
      ),
    );
    const varint = (n: number) => {
      const out: number[] = [];
      for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n & 0x7f) | 0x80);
      return [...out, n];
    };
    const values = texts.flatMap((s) => [...varint(Buffer.byteLength(s)), ...Buffer.from(s)]);
    expect([...data]).toEqual(block(texts.length, [["s", "Nullable(String)", [...texts.map(() => 0), ...values]]]));
  });

  it("writes text given as UTF-8 bytes exactly as the same text given as strings", () => {
    const schema: Column[] = [
      { name: "i", type: { kind: "int32" }, nullable: true },
      { name: "s", type: { kind: "text" }, nullable: true },
      { name: "j", type: { kind: "json" }, nullable: true },
    ];
    const rows = [
      { i: 1, s: "é\u{1F600}", j: '{"a":1}' },
      { i: null, s: null, j: null },
      { i: 3, s: "x".repeat(300), j: "[]" },
      { i: 4, s: "", j: '"ü"' },
    ];
    const strings = batchFromRows(schema, rows);
    const bytes = withUtf8(strings);
    expect(bytes.columns[1]?.utf8).toBeDefined();
    expect(encodeNative(bytes).equals(encodeNative(strings))).toBe(true);
  });

  it("writes decimals given as scaled integers exactly as the same decimals given as strings, never asking for the strings", () => {
    const schema: Column[] = [
      { name: "d9", type: { kind: "decimal", precision: 9, scale: 2 }, nullable: true },
      { name: "d18", type: { kind: "decimal", precision: 18, scale: 4 }, nullable: true },
      { name: "d38", type: { kind: "decimal", precision: 38, scale: 10 }, nullable: true },
      { name: "d76", type: { kind: "decimal", precision: 76, scale: 0 }, nullable: true },
    ];
    const rows = [
      { d9: "9999999.99", d18: "-99999999999.9999", d38: "-99999.9999999999", d76: "-9007199254740991" },
      { d9: null, d18: null, d38: null, d76: null },
      { d9: "-0.01", d18: "1.5000", d38: "0.0000000001", d76: "9007199254740991" },
      { d9: "0", d18: "-0.0001", d38: "-1", d76: "0" },
    ];
    const strings = batchFromRows(schema, rows);
    const given = withUtf8(strings);
    const scaledOnly = {
      ...given,
      columns: given.columns.map((column, c) => {
        const type = schema[c]?.type;
        expect(type?.kind === "decimal" && column.scaled?.(type.scale)).toBeTruthy();
        return {
          get values(): never {
            throw new Error("a decimal's strings were asked for");
          },
          nulls: column.nulls,
          scaled: column.scaled,
        };
      }),
    };
    expect(encodeNative(scaledOnly).equals(encodeNative(strings))).toBe(true);
  });

  it("refuses a decimal given as text wider than its column, naming the value, on either path", () => {
    const narrow: Column[] = [{ name: "d", type: { kind: "decimal", precision: 4, scale: 1 }, nullable: true }];
    expect(() => encodeNative(batchFromRows(narrow, [{ d: "1000.0" }]))).toThrow(
      /column "d": value "1000\.0" does not fit \(more than 4 digits\)/,
    );
    // More digits than a double holds: the exact (bigint) path.
    const wide: Column[] = [{ name: "d", type: { kind: "decimal", precision: 18, scale: 2 }, nullable: true }];
    expect(() => encodeNative(batchFromRows(wide, [{ d: "10000000000000000.00" }]))).toThrow(
      /column "d": value "10000000000000000\.00" does not fit \(more than 18 digits\)/,
    );
    expect(() => encodeNative(batchFromRows(wide, [{ d: "1.005" }]))).toThrow(/more than 2 digits after the point/);
  });

  it("refuses a scaled decimal wider than its column, naming the value", () => {
    const schema: Column[] = [{ name: "d", type: { kind: "decimal", precision: 4, scale: 1 }, nullable: true }];
    const given = withUtf8(batchFromRows(schema, [{ d: "1000.0" }]));
    expect(() => encodeNative(given)).toThrow(/column "d": value "1000\.0" does not fit \(more than 4 digits\)/);
  });

  it("writes lists as end offsets, then their elements as one column; a NULL list as empty", () => {
    const schema: Column[] = [
      { name: "l", type: { kind: "list", element: { kind: "int16" } }, nullable: true },
      { name: "n", type: { kind: "list", element: { kind: "list", element: { kind: "text" } } }, nullable: true },
    ];
    const data = encodeNative(
      batchFromRows(schema, [
        { l: [1, null], n: [["a"], [], null] },
        { l: null, n: null },
        { l: [-2], n: [[null, "bc"]] },
      ]),
    );
    expect([...data]).toEqual(
      block(3, [
        ["l", "Array(Nullable(Int16))", [...le(2, 8), ...le(2, 8), ...le(3, 8), 0, 1, 0, 1, 0, 0, 0, 0xfe, 0xff]],
        [
          "n",
          "Array(Array(Nullable(String)))",
          // rows end after 3, 3 and 4 inner lists; those end after 1, 1, 1 and 3 strings
          [
            ...le(3, 8),
            ...le(3, 8),
            ...le(4, 8),
            ...le(1, 8),
            ...le(1, 8),
            ...le(1, 8),
            ...le(3, 8),
            0,
            1,
            0,
            1,
            0x61,
            0,
            2,
            0x62,
            0x63,
          ],
        ],
      ]),
    );
    expect(wireStructure(schema)).toBe("`l` Array(Nullable(Int16)), `n` Array(Array(Nullable(String)))");
  });

  it("converts values held outside their typed array (int16 as 16 bits, float32 as 32)", () => {
    const schema: Column[] = [
      { name: "s", type: { kind: "int16" }, nullable: false },
      { name: "f", type: { kind: "float32" }, nullable: false },
    ];
    const data = encodeNative(batchFromRows(schema, [{ s: -2, f: 1.5 }]));
    expect([...data]).toEqual(
      block(1, [
        ["s", "Nullable(Int16)", [0, 0xfe, 0xff]],
        ["f", "Nullable(Float32)", [0, 0, 0, 0xc0, 0x3f]],
      ]),
    );
  });

  it("writes a NULL row's value as zeros whatever its slot holds", () => {
    const schema: Column[] = [{ name: "t", type: { kind: "timestamp" }, nullable: true }];
    const data = encodeNative({
      schema,
      length: 2,
      columns: [{ values: new BigInt64Array([1n << 62n, 5n]), nulls: new Uint8Array([1, 0]) }],
    });
    expect([...data]).toEqual(block(2, [["t", "Nullable(DateTime64(6, 'UTC'))", [1, 0, ...le(0, 8), ...le(5, 8)]]]));
  });

  it("reads a list's elements by index, whatever holds them (a typed array, a sparse array)", () => {
    const schema: Column[] = [{ name: "l", type: { kind: "list", element: { kind: "int32" } }, nullable: true }];
    const plain = encodeNative(batchFromRows(schema, [{ l: [1, 2] }, { l: [3, null, 5] }]));
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case
    const held = encodeNative({ schema, length: 2, columns: [{ values: [new Int32Array([1, 2]), [3, , 5]] }] });
    expect(held.equals(plain)).toBe(true);
  });

  it("refuses an int16 value out of its range, naming the column", () => {
    const schema: Column[] = [{ name: "s", type: { kind: "int16" }, nullable: true }];
    expect(() => encodeNative({ schema, length: 1, columns: [{ values: new Int32Array([70000]) }] })).toThrow(
      /column "s": value "70000" does not fit \(not a 16-bit integer\)/,
    );
  });

  it("scales decimals exactly and refuses lost digits", () => {
    expect(scaledDecimal("-12.3", 5, 2, "d")).toBe(-1230n);
    expect(scaledDecimal("12.300", 5, 2, "d")).toBe(1230n);
    expect(scaledDecimal(".5", 5, 2, "d")).toBe(50n);
    expect(() => scaledDecimal("1.234", 5, 2, "d")).toThrow(/after the point/);
    expect(() => scaledDecimal("1000", 5, 2, "d")).toThrow(/more than 5 digits/);
    expect(() => scaledDecimal("1e5", 5, 2, "d")).toThrow(/not a decimal/);
  });

  it("writes Decimal128 as a 16-byte two's complement, and a NULL one as zeros", () => {
    const schema: Column[] = [{ name: "d", type: { kind: "decimal", precision: 30, scale: 0 }, nullable: true }];
    const data = encodeNative(batchFromRows(schema, [{ d: "-1" }, { d: null }]));
    expect([...data]).toEqual(
      block(2, [["d", "Nullable(Decimal(30, 0))", [0, 1, ...new Array(16).fill(0xff), ...new Array(16).fill(0)]]]),
    );
  });
});
