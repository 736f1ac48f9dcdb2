import { isSqlloadError } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { DEFAULT_MEMORY_LIMIT, memoryLimit } from "./duckdb-memory-limit.js";

describe("memoryLimit", () => {
  it("is the default when unset, and takes what DuckDB reads as a size", () => {
    expect(memoryLimit(undefined)).toBe(DEFAULT_MEMORY_LIMIT);
    for (const size of ["1GB", "1.5GB", "512 MiB", "64mb", "-1", " 2GB "]) expect(memoryLimit(size)).toBe(size.trim());
  });

  it("refuses what DuckDB would not read, naming the key", () => {
    for (const [value, code] of [
      ["lots", "SL107"],
      ["100", "SL107"],
      ["80%", "SL107"],
      ["0MB", "SL107"],
      ["", "SL107"],
      [256, "SL103"],
    ] as const) {
      let error: unknown;
      try {
        memoryLimit(value);
      } catch (e) {
        error = e;
      }
      expect(isSqlloadError(error) && error.code, String(value)).toBe(code);
      expect((error as Error).message).toContain("memory_limit");
    }
  });
});
