import { describe, expect, it } from "vitest";
import type { Column } from "../connector/logical-types.js";
import type { SourceTableInfo } from "../connector/source.js";
import { resolveCursor } from "./resolve-cursor.js";

const columns: Column[] = [
  { name: "id", type: { kind: "int64" }, nullable: false },
  { name: "day", type: { kind: "date" }, nullable: true },
  { name: "at", type: { kind: "timestamptz" }, nullable: false },
  { name: "code", type: { kind: "text" }, nullable: true },
  { name: "price", type: { kind: "float64" }, nullable: true },
];
const declared: SourceTableInfo = { columns };
const none: SourceTableInfo = { columns: undefined };

describe("resolveCursor", () => {
  it("takes the column's kind and nullability from the source's columns", () => {
    expect(resolveCursor({ cursorColumn: "id" }, declared, undefined, "raw.t")).toEqual({
      column: "id",
      kind: "integer",
      nullable: false,
    });
    expect(resolveCursor({ cursorColumn: "day" }, declared, undefined, "raw.t")).toMatchObject({ kind: "date", nullable: true });
    expect(resolveCursor({ cursorColumn: "at" }, declared, undefined, "raw.t")).toMatchObject({ kind: "timestamp" });
    expect(resolveCursor({ cursorColumn: "code" }, declared, undefined, "raw.t")).toMatchObject({ kind: "text" });
  });

  it("prefers the source's own cursor kind and nullability over the column's", () => {
    const info: SourceTableInfo = { columns, cursorKind: "text", cursorNullable: true };
    expect(resolveCursor({ cursorColumn: "id" }, info, undefined, "raw.t")).toEqual({
      column: "id",
      kind: "text",
      nullable: true,
    });
  });

  it("refuses a cursor column that is not among the columns (SL200), naming them", () => {
    expect(() => resolveCursor({ cursorColumn: "nope" }, declared, undefined, "raw.t")).toThrow(
      expect.objectContaining({ code: "SL200", message: expect.stringContaining("(id, day, at, code, price)") }),
    );
  });

  it("refuses a column of a type a cursor cannot be (SL201)", () => {
    expect(() => resolveCursor({ cursorColumn: "price" }, declared, undefined, "raw.t")).toThrow(
      expect.objectContaining({ code: "SL201", message: expect.stringContaining("is float64") }),
    );
  });

  it("falls back to the target's columns when the source declares none, and checks them the same way", () => {
    const target: Column[] = [{ name: "k", type: { kind: "int32" }, nullable: false }];
    expect(resolveCursor({ cursorColumn: "k" }, none, target, "raw.t")).toEqual({
      column: "k",
      kind: "integer",
      nullable: false,
    });
    expect(() => resolveCursor({ cursorColumn: "x" }, none, target, "raw.t")).toThrow(expect.objectContaining({ code: "SL200" }));
    // The source's columns win over the target's.
    expect(resolveCursor({ cursorColumn: "code" }, declared, target, "raw.t")).toMatchObject({ kind: "text" });
  });

  it("without columns, guesses the kind from cursor_start (else cursor_end); nullable unless told", () => {
    const guess = (cursorStart?: string, cursorEnd?: string) =>
      resolveCursor({ cursorColumn: "c", cursorStart, cursorEnd }, none, undefined, "raw.t")?.kind;
    expect(guess("42")).toBe("integer");
    expect(guess("-7")).toBe("integer");
    expect(guess("2026-01-01")).toBe("date");
    expect(guess("2026-01-01T10:00:00Z")).toBe("timestamp");
    expect(guess("abc")).toBe("text");
    expect(guess(undefined, "100")).toBe("integer");
    expect(guess("now")).toBeUndefined();
    expect(guess()).toBeUndefined();
    expect(resolveCursor({ cursorColumn: "c", cursorStart: "1" }, none, undefined, "raw.t")?.nullable).toBe(true);
    expect(
      resolveCursor({ cursorColumn: "c", cursorStart: "1" }, { ...none, cursorNullable: false }, undefined, "raw.t")?.nullable,
    ).toBe(false);
  });

  it("does not guess when asked not to: undefined until the first rows tell", () => {
    expect(resolveCursor({ cursorColumn: "c", cursorStart: "1" }, none, undefined, "raw.t", false)).toBeUndefined();
    // A kind the source states needs no guess.
    expect(resolveCursor({ cursorColumn: "c" }, { ...none, cursorKind: "date" }, undefined, "raw.t", false)).toMatchObject({
      kind: "date",
    });
  });
});
