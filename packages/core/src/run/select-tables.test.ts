import { describe, expect, it } from "vitest";
import { selectTables } from "./select-tables.js";

const tables = [
  { source: "app", name: "app__orders" },
  { source: "app", name: "app__users" },
  { source: "shop", name: "shop__events" },
];
const names = (patterns: string[]) => selectTables(tables, patterns).map((t) => t.name);

describe("selectTables", () => {
  it("selects by table name, source name or glob, in project order; none selects all", () => {
    expect(names([])).toEqual(["app__orders", "app__users", "shop__events"]);
    expect(names(["shop__events", "app__orders"])).toEqual(["app__orders", "shop__events"]);
    expect(names(["app"])).toEqual(["app__orders", "app__users"]);
    expect(names(["*__u?ers", "shop*"])).toEqual(["app__users", "shop__events"]);
  });

  it("refuses a pattern matching nothing, listing what exists", () => {
    expect(() => names(["app__order"])).toThrow(expect.objectContaining({ code: "SL114" }));
    try {
      names(["nope"]);
    } catch (error) {
      expect((error as { hint: string }).hint).toBe("Tables: app__orders, app__users, shop__events; sources: app, shop.");
    }
  });

  it("treats regular-expression characters in a pattern literally", () => {
    expect(() => names(["app.*"])).toThrow(/no table matches `app\.\*`/);
  });
});
