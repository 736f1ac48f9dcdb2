import { rangePredicate } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { catalogColumn as catalog } from "../test/pg-columns.js";
import {
  type CatalogColumn,
  derivedName,
  dollarQuote,
  fitsInto,
  mapColumn,
  pgDateText,
  pgTimestampText,
  pgTypeFor,
  quoteIdent,
  quoteLiteral,
  rangeDialect,
} from "./postgres-dialect.js";

describe("identifiers and literals", () => {
  it("quotes identifiers, doubling quotes", () => {
    expect(quoteIdent('Odd "Name" ü')).toBe('"Odd ""Name"" ü"');
    expect(() => quoteIdent("x".repeat(64))).toThrow(/63 bytes/);
    expect(() => quoteIdent("é".repeat(32))).toThrow(/63 bytes/);
  });

  it("derives names that fit in 63 bytes and stay distinct", () => {
    expect(derivedName("orders", "__sqlload_new")).toBe("orders__sqlload_new");
    const a = derivedName(`${"é".repeat(28)}a`, "__sqlload_new");
    const b = derivedName(`${"é".repeat(28)}b`, "__sqlload_new");
    expect(Buffer.byteLength(a)).toBeLessThanOrEqual(63);
    expect(a).not.toBe(b);
    expect(a.endsWith("__sqlload_new")).toBe(true);
  });

  it("quotes literals in the E'' form", () => {
    expect(quoteLiteral("it's \\ fine")).toBe("E'it''s \\\\ fine'");
    expect(() => quoteLiteral("a\0b")).toThrow(/NUL/);
  });

  it("dollar-quotes a body with a tag it does not hold", () => {
    expect(dollarQuote("SELECT 'a'")).toBe("$sqlload$SELECT 'a'$sqlload$");
    expect(dollarQuote('CREATE TABLE "$sqlload$" ()')).toBe('$sqlload1$CREATE TABLE "$sqlload$" ()$sqlload1$');
    expect(dollarQuote("$sqlload$ $sqlload1$")).toBe("$sqlload2$$sqlload$ $sqlload1$$sqlload2$");
  });

  it("writes dates and timestamps Postgres reads in any era", () => {
    expect(pgDateText(0)).toBe("1970-01-01");
    const ides = new Date(0);
    ides.setUTCFullYear(-43, 2, 15); // astronomical year -43 is 44 BC
    expect(pgDateText(ides.getTime() / 86_400_000)).toBe("0044-03-15 BC");
    expect(pgDateText(0x7fffffff)).toBe("infinity");
    expect(pgTimestampText(1n)).toBe("1970-01-01 00:00:00.000001+00");
    expect(pgTimestampText(-(2n ** 63n))).toBe("-infinity");
  });
});

describe("types", () => {
  it("maps numeric typmods, including Postgres 15's negative scale", () => {
    const typmod = (p: number, s: number) => ((p << 16) | (s & 0x7ff)) + 4;
    expect(mapColumn(catalog({ typeName: "numeric", typmod: typmod(12, 2) })).type).toEqual({
      kind: "decimal",
      precision: 12,
      scale: 2,
    });
    expect(mapColumn(catalog({ typeName: "numeric", typmod: typmod(5, -2) })).type).toEqual({
      kind: "decimal",
      precision: 7,
      scale: 0,
    });
    const free = mapColumn(catalog({ typeName: "numeric" }));
    expect(free.type).toEqual({ kind: "decimal", precision: 38, scale: 9 });
    expect(free.unconstrainedNumeric).toBe(true);
  });

  it("reads unknown types as text and arrays of them as text[]", () => {
    const interval = mapColumn(catalog({ typeName: "interval", declared: "interval" }));
    expect([interval.type.kind, interval.castToText, interval.wire.kind]).toEqual(["text", true, "unsupported"]);
    const ranges = mapColumn(catalog({ typeName: "_int4range", elementName: "int4range", elementType: "r", elementOid: 3904 }));
    expect(ranges.type).toEqual({ kind: "list", element: { kind: "text" } });
    expect(ranges.castToText).toBe(true);
  });

  it("declares target types, unconstrained numeric for decimal(38,9)", () => {
    expect(pgTypeFor({ kind: "decimal", precision: 38, scale: 9 })).toBe("numeric");
    expect(pgTypeFor({ kind: "decimal", precision: 12, scale: 2 })).toBe("numeric(12,2)");
    expect(pgTypeFor({ kind: "list", element: { kind: "list", element: { kind: "int64" } } })).toBe("bigint[]");
    expect(pgTypeFor({ kind: "json" })).toBe("jsonb");
  });

  it("knows which types fit into which", () => {
    expect(fitsInto({ kind: "int16" }, { kind: "int64" })).toBe(true);
    expect(fitsInto({ kind: "int64" }, { kind: "int32" })).toBe(false);
    expect(fitsInto({ kind: "float32" }, { kind: "float64" })).toBe(true);
    expect(fitsInto({ kind: "decimal", precision: 10, scale: 2 }, { kind: "decimal", precision: 12, scale: 3 })).toBe(true);
    expect(fitsInto({ kind: "decimal", precision: 10, scale: 4 }, { kind: "decimal", precision: 12, scale: 3 })).toBe(false);
    expect(fitsInto({ kind: "int32" }, { kind: "decimal", precision: 12, scale: 2 })).toBe(true);
    expect(fitsInto({ kind: "text" }, { kind: "json" })).toBe(false);
    const free = mapColumn(catalog({ typeName: "numeric" }));
    expect(fitsInto({ kind: "decimal", precision: 60, scale: 30 }, free)).toBe(true);
  });
});

describe("rangeDialect", () => {
  const literal = (x: { value: unknown }) => `'${String(x.value)}'`;
  const predicate = (over: Partial<CatalogColumn>, native: boolean) =>
    rangePredicate(rangeDialect(mapColumn(catalog(over)), native, literal), {
      column: "c",
      kind: "text",
      range: { from: { kind: "text", value: "a" } },
      includeNulls: false,
    });

  it('compares text under COLLATE "C", casting a non-text column first', () => {
    expect(predicate({ collation: "en-US-x-icu" }, false)).toBe(`("c" COLLATE "C") >= 'a'`);
    expect(predicate({ declared: "citext", typeName: "citext", collation: "default" }, false)).toMatch(
      /^\("c"(::text)? COLLATE "C"\) >= 'a'$/,
    );
  });

  it("compares a column that already sorts by code point as it is, so its index serves", () => {
    expect(predicate({ collation: "C" }, true)).toBe(`"c" >= 'a'`);
  });
});
