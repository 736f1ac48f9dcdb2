import { describe, expect, it } from "vitest";
import { jsonText } from "./json-text.js";

describe("jsonText", () => {
  it("writes what JSON.stringify writes", () => {
    for (const value of [{ a: 1, b: [true, null, "x"] }, [1, "\u0000", { c: "é" }], "text", 0, null, { d: undefined }])
      expect(jsonText(value)).toBe(JSON.stringify(value));
  });

  it("writes bigints as JSON numbers with every digit, wherever they are", () => {
    expect(jsonText({ id: 2n ** 63n + 1n, list: [-(10n ** 30n), 1n], nested: { n: 0n } })).toBe(
      '{"id":9223372036854775809,"list":[-1000000000000000000000000000000,1],"nested":{"n":0}}',
    );
    expect(jsonText(7n)).toBe("7");
    expect(JSON.parse(jsonText({ s: "\u0000x:1", n: 5n }) as string)).toEqual({ s: "\u0000x:1", n: 5 });
  });

  it("has no text for what JSON cannot write", () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(jsonText(circular)).toBeUndefined();
    expect(jsonText(undefined)).toBeUndefined();
  });
});
