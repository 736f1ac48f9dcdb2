import { describe, expect, it } from "vitest";
import { ColumnStore } from "./column-store.js";
import type { LogicalType } from "./logical-types.js";
import { toStorageValue } from "./storage-value.js";

/** What the store holds at row `i` (a typed array's element, or the array's). */
const stored = (store: ColumnStore, i: number) => (store.values as ArrayLike<unknown>)[i];

/**
 * Every value is stored as toStorageValue converts it, or refused where it refuses it: the fast
 * paths (numbers into 64-bit columns as two words, Dates into timestamps) must not change either.
 */
function agreesWithConversion(type: LogicalType, values: readonly unknown[]) {
  const store = new ColumnStore(type, values.length);
  values.forEach((value, i) => {
    const expected = toStorageValue(type, value);
    const ok = store.set(i, value);
    expect({ value, ok }).toEqual({ value, ok: expected !== undefined });
    if (expected !== undefined)
      expect({ value, stored: stored(store, i) }).toEqual({
        value,
        stored: expected === true ? 1 : expected === false ? 0 : expected,
      });
  });
}

describe("ColumnStore", () => {
  it("stores numbers into int64 as toStorageValue does, at every boundary of the two words", () => {
    const edges = [0, -0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 32 - 1, 2 ** 32, -(2 ** 32), 2 ** 32 + 1, -(2 ** 32) - 1];
    const values = [
      ...edges,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
      2 ** 53,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ];
    for (let k = 0; k < 200; k++) values.push(Math.floor((Math.random() - 0.5) * 2 * Number.MAX_SAFE_INTEGER));
    agreesWithConversion({ kind: "int64" }, [
      ...values,
      2n ** 63n - 1n,
      -(2n ** 63n),
      2n ** 63n,
      -(2n ** 63n) - 1n,
      "42",
      "x",
      true,
    ]);
  });

  it("stores Dates into timestamps as toStorageValue does, near and past where microseconds stop being exact doubles", () => {
    const safe = Math.floor(Number.MAX_SAFE_INTEGER / 1000);
    const ms = [0, -1, 1, 1_790_000_000_123, -62_135_596_800_000, safe, -safe, safe + 1, -safe - 1, 8.64e15, -8.64e15];
    for (let k = 0; k < 200; k++) ms.push(Math.floor((Math.random() - 0.5) * 2 * 8.64e15));
    for (const kind of ["timestamp", "timestamptz"] as const) {
      agreesWithConversion({ kind }, [...ms.map((m) => new Date(m)), new Date(Number.NaN), "2026-10-12T16:00:00.123456Z", 5n]);
    }
  });

  it("refuses a Date whose time is not whole milliseconds (a subclass's), as the general conversion does", () => {
    class Fractional extends Date {
      override getTime() {
        return 1.5;
      }
    }
    const store = new ColumnStore({ kind: "timestamp" }, 1);
    expect(store.set(0, new Fractional())).toBe(false);
    expect(toStorageValue({ kind: "timestamptz" }, new Fractional())).toBeUndefined();
  });

  it("refuses into a date column a Date whose time is not whole milliseconds, infinite or beyond a Date's range, as into a timestamp", () => {
    const subclass = (time: number) =>
      new (class extends Date {
        override getTime() {
          return time;
        }
      })();
    const store = new ColumnStore({ kind: "date" }, 1);
    // Stored before as day 0 (1970-01-01), or a day count wrapped into 32 bits.
    for (const time of [1.5, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e20]) {
      expect({ time, ok: store.set(0, subclass(time)) }).toEqual({ time, ok: false });
      expect(toStorageValue({ kind: "date" }, subclass(time))).toBeUndefined();
    }
    expect(toStorageValue({ kind: "date" }, new Date(-1))).toBe(-1);
    expect(toStorageValue({ kind: "date" }, new Date(8.64e15))).toBe(100_000_000);
  });

  it("stores the other kinds' own values as they are, and converts or refuses the rest as toStorageValue does", () => {
    agreesWithConversion({ kind: "int32" }, [0, -(2 ** 31), 2 ** 31 - 1, 2 ** 31, 1.5, 7n, "12", null]);
    agreesWithConversion({ kind: "int16" }, [-32768, 32767, 32768, -32769, "5"]);
    agreesWithConversion({ kind: "float64" }, [0.1, -0, Number.NaN, Number.NEGATIVE_INFINITY, 3n, "2.5", "x"]);
    agreesWithConversion({ kind: "boolean" }, [true, false, 1, "true"]);
    agreesWithConversion({ kind: "text" }, ["", "é", 5, null]);
    agreesWithConversion({ kind: "uuid" }, ["123e4567-e89b-12d3-a456-426614174000", 5]);
    agreesWithConversion({ kind: "decimal", precision: 12, scale: 2 }, ["1.50", 2, " 3 ", "x"]);
  });

  it("keeps a uuid in its usual form as given, makes the other forms Postgres reads canonical, and refuses text that is no uuid", () => {
    const uuid = { kind: "uuid" } as const;
    const canonical = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
    const upper = "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11";
    expect([toStorageValue(uuid, canonical), toStorageValue(uuid, upper)]).toEqual([canonical, upper]);
    // ClickHouse made NULL of braces and of hyphens elsewhere in a Nullable(UUID) column.
    for (const form of [
      "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
      "a0eebc999c0b4ef8bb6d6bb9bd380a11",
      "A0EEBC999C0B4EF8BB6D6BB9BD380A11",
      "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
      "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
    ])
      expect({ form, stored: toStorageValue(uuid, form) }).toEqual({ form, stored: canonical });
    // Stored before as they came; ClickHouse then made NULL of them in a Nullable(UUID) column.
    for (const bad of [
      "",
      "not-a-uuid",
      "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
      "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",
      "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1g",
      "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
      ` ${canonical}`,
    ])
      expect({ bad, stored: toStorageValue(uuid, bad) }).toEqual({ bad, stored: undefined });
    agreesWithConversion(uuid, [canonical, upper, "a0eebc999c0b4ef8bb6d6bb9bd380a11", "not-a-uuid", "", 5]);
  });

  it("starts each batch in fresh storage", () => {
    const store = new ColumnStore({ kind: "int64" }, 2);
    store.set(0, 2 ** 40);
    const first = store.take() as BigInt64Array;
    store.set(0, -5);
    expect(first[0]).toBe(2n ** 40n);
    expect((store.values as BigInt64Array)[0]).toBe(-5n);
  });
});
