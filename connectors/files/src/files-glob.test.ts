import { describe, expect, it } from "vitest";
import { globBase, globToRegExp, literalGlob } from "./files-glob.js";

describe("globToRegExp", () => {
  const cases: [string, string, boolean][] = [
    ["orders/**/*.parquet", "orders/a.parquet", true],
    ["orders/**/*.parquet", "orders/day=2026-10-01/a.parquet", true],
    ["orders/**/*.parquet", "orders/x/y/a.parquet", true],
    ["orders/**/*.parquet", "ordersx/a.parquet", false],
    ["orders/**/*.parquet", "orders/a.csv", false],
    ["orders/*.csv", "orders/sub/a.csv", false],
    ["orders/*.csv", "orders/a.csv", true],
    ["*.{csv,csv.gz}", "a.csv.gz", true],
    ["*.{csv,csv.gz}", "a.json", false],
    ["file?.csv", "file1.csv", true],
    ["file?.csv", "file12.csv", false],
    ["[ab].csv", "a.csv", true],
    ["[!ab].csv", "a.csv", false],
    ["[!ab].csv", "c.csv", true],
    ["a+b (1).csv", "a+b (1).csv", true],
    ["**", "x/y/z", true],
    ["données/*.csv", "données/é.csv", true],
  ];
  for (const [glob, path, expected] of cases) {
    it(`${glob} ${expected ? "matches" : "does not match"} ${path}`, () => {
      expect(globToRegExp(glob).test(path)).toBe(expected);
    });
  }
});

describe("globBase", () => {
  it("is the folder before the first pattern", () => {
    expect(globBase("orders/**/*.parquet")).toBe("orders");
    expect(globBase("a/b/*.csv")).toBe("a/b");
    expect(globBase("*.csv")).toBe("");
    expect(globBase("x/d=*/f.csv")).toBe("x");
  });
});

describe("literalGlob", () => {
  const names = ["back\\slash `tick` [br]", "a*b?c", "{x,y}", "[!a]", "a]b}c,d", "plain.name", "Ünïcødé 表 😀"];
  for (const name of names) {
    it(`matches ${JSON.stringify(name)} and nothing else`, () => {
      const pattern = globToRegExp(`${literalGlob(name)}/**/*.parquet`);
      expect(pattern.test(`${name}/part-0.parquet`)).toBe(true);
      expect(pattern.test(`${name}x/part-0.parquet`)).toBe(false);
      expect(pattern.test("b/part-0.parquet")).toBe(false);
    });
  }
});
