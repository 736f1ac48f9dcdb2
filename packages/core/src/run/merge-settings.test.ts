import { describe, expect, it } from "vitest";
import { mergeTableSettings } from "./merge-settings.js";

const where = () => ({ file: "sqlload.toml" });

describe("mergeTableSettings", () => {
  it("keeps the file's settings over a table's own, and fills in what the file leaves out", () => {
    const merged = mergeTableSettings(
      { writeStrategy: "merge", primaryKey: ["id"], cursorColumn: undefined },
      { writeStrategy: "append", cursorColumn: "at", description: "events" },
      where,
      "shop.events",
    );
    expect(merged).toMatchObject({ writeStrategy: "merge", primaryKey: ["id"], cursorColumn: "at", description: "events" });
  });

  it("returns the file's settings as they are when the table declares none", () => {
    const file = { cursorColumn: "at" };
    expect(mergeTableSettings(file, undefined, where, "shop.events")).toBe(file);
    expect(mergeTableSettings(file, {}, where, "shop.events")).toBe(file);
  });

  it("validates the table's own settings, and the combination as a whole", () => {
    expect(() => mergeTableSettings({}, { cursorColum: "at" }, where, "shop.events")).toThrow(
      expect.objectContaining({ code: "SL102" }),
    );
    // merge needs primary_key, whichever side sets which.
    expect(() => mergeTableSettings({ writeStrategy: "merge" }, { cursorColumn: "at" }, where, "shop.events")).toThrow(
      expect.objectContaining({ code: "SL108" }),
    );
  });
});
