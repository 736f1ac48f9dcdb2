import { describe, expect, it } from "vitest";
import { collationWarnings } from "./collation-warnings.js";

describe("collationWarnings", () => {
  it("names the cursor column, its collation and the consequence", () => {
    const [warning, ...rest] = collationWarnings({ table: "raw.src__t", collations: { k: "nocase" }, cursorColumn: "k" });
    expect(rest).toEqual([]);
    expect(warning).toContain("target column raw.src__t.k sets collation nocase");
    expect(warning).toContain("destination maximum of the cursor is taken in that collation's order, not by code point");
  });

  it("warns about a primary key column too, once per column", () => {
    const warnings = collationWarnings({
      table: "raw.src__t",
      collations: { k: "nocase", id: "nfc", other: "nocase" },
      cursorColumn: "k",
      primaryKey: ["id", "k"],
    });
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain(
      "raw.src__t.id sets collation nfc: sqlload does not override it, so rows are matched on the primary key",
    );
  });

  it("says nothing when no column that matters sets one", () => {
    expect(collationWarnings({ table: "raw.t", collations: { other: "nocase" }, cursorColumn: "k", primaryKey: ["id"] })).toEqual(
      [],
    );
    expect(collationWarnings({ table: "raw.t", collations: undefined, cursorColumn: "k" })).toEqual([]);
  });

  it("warns about a source cursor column that sets one", () => {
    const [warning] = collationWarnings({
      table: "raw.app__t",
      collations: {},
      cursorColumn: "k",
      source: { table: "app.main.t", collations: { k: "nocase" } },
    });
    expect(warning).toContain(
      "source column app.main.t.k sets collation nocase: sqlload does not override it, so the source compares the cursor range",
    );
  });
});
