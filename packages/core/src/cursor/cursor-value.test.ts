import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareCursor, cursorFromJSON, cursorToJSON, formatCursor, parseCursor } from "./cursor-value.js";

describe("parseCursor and formatCursor", () => {
  it("prints each kind as SPEC §4 shows", () => {
    expect(formatCursor(parseCursor("timestamp", "2026-10-12T16:00:00Z"))).toBe("2026-10-12 16:00:00.000000+00");
    expect(formatCursor(parseCursor("date", "2026-10-12"))).toBe("2026-10-12");
    expect(formatCursor(parseCursor("integer", "42"))).toBe("42");
    expect(formatCursor(parseCursor("text", "B1"))).toBe("'B1'");
    expect(formatCursor(parseCursor("text", "it's"))).toBe("'it''s'");
  });

  it("keeps microseconds and applies offsets", () => {
    expect(formatCursor(parseCursor("timestamp", "2026-10-12T18:00:00.123456+02:00"))).toBe("2026-10-12 16:00:00.123456+00");
    expect(formatCursor(parseCursor("timestamp", "2026-10-12 16:00:00.000001"))).toBe("2026-10-12 16:00:00.000001+00");
  });

  it("takes a date given for a timestamp cursor as its midnight UTC", () => {
    expect(formatCursor(parseCursor("timestamp", "2026-10-01"))).toBe("2026-10-01 00:00:00.000000+00");
  });

  it("keeps integers exact beyond 2^53", () => {
    const big = parseCursor("integer", "9007199254740993");
    expect(big.value).toBe(9007199254740993n);
    expect(compareCursor(big, parseCursor("integer", "9007199254740992"))).toBe(1);
  });

  it("rejects values that are not of the kind, with SL113", () => {
    expect(() => parseCursor("date", "2026-02-30")).toThrow(/SL113|not a valid date/);
    expect(() => parseCursor("integer", "12.5")).toThrowError(expect.objectContaining({ code: "SL113" }));
    expect(() => parseCursor("timestamp", "yesterday")).toThrowError(expect.objectContaining({ code: "SL113" }));
  });

  it("round-trips through JSON for every kind", () => {
    const micros = fc.bigInt({ min: -(10n ** 15n), max: 10n ** 17n });
    fc.assert(
      fc.property(micros, (value) => {
        const cursor = { kind: "timestamp" as const, value };
        expect(cursorFromJSON(cursorToJSON(cursor))).toEqual(cursor);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: -100_000, max: 100_000 }), (value) => {
        const cursor = { kind: "date" as const, value };
        expect(cursorFromJSON(cursorToJSON(cursor))).toEqual(cursor);
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (value) => {
        const cursor = { kind: "integer" as const, value };
        expect(cursorFromJSON(cursorToJSON(cursor))).toEqual(cursor);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (value) => {
        const cursor = { kind: "text" as const, value };
        expect(cursorFromJSON(cursorToJSON(cursor))).toEqual(cursor);
      }),
    );
  });
});
