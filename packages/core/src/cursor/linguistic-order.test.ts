import { describe, expect, it } from "vitest";
import { linguisticOrderWarning } from "./linguistic-order.js";

describe("linguisticOrderWarning", () => {
  it("warns, naming the column and the two keys, when keys rise only in a linguistic order", () => {
    const warning = linguisticOrderWarning("code", ["apple1", "Banana2", "cherry3", "Date4"]);
    expect(warning).toContain("text cursor code");
    expect(warning).toContain("'apple1' sorts before 'Banana2'");
    expect(warning).toContain("zero-padded numbers, ULIDs, ISO 8601 timestamps");
  });

  it("is silent for keys that increase in either order, and for fewer than two keys", () => {
    expect(linguisticOrderWarning("code", ["k0001", "k0002", "k0010"])).toBeUndefined();
    expect(linguisticOrderWarning("code", ["01J9Z3", "01J9Z4"])).toBeUndefined();
    expect(linguisticOrderWarning("code", ["Date4"])).toBeUndefined();
    expect(linguisticOrderWarning("code", [])).toBeUndefined();
  });

  it("compares by code point, not UTF-16 units: an astral key after U+FFFD rises", () => {
    expect(linguisticOrderWarning("code", ["\u{FFFD}", "\u{1F600}"])).toBeUndefined();
    expect(linguisticOrderWarning("code", ["\u{1F600}", "\u{FFFD}"])).toBeDefined();
  });
});
