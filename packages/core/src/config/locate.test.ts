import { describe, expect, it } from "vitest";
import { KeyLocator } from "./locate.js";

describe("KeyLocator", () => {
  it("finds keys under quoted, dotted and single-quoted headers", () => {
    const text = `[target]
path = "x"

[sources.app.tables."public.orders"]
lookback = "1h"

[sources.app.tables.'public."Odd"']
cursor_column = "k"
`;
    const locator = new KeyLocator(text);
    expect(locator.line(["target", "path"])).toBe(2);
    expect(locator.line(["sources", "app", "tables", "public.orders", "lookback"])).toBe(5);
    expect(locator.line(["sources", "app", "tables", 'public."Odd"', "cursor_column"])).toBe(8);
    expect(locator.line(["sources", "app", "tables", "public.orders", "missing"])).toBe(4);
  });
});
