import { isSqlloadError } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { DEFAULT_MEMORY_LIMIT, DEFAULT_ROW_GROUP_SIZE, memorySettings } from "./duckdb-memory-settings.js";

function codeOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    expect((error as Error).message).toMatch(/memory_limit|row_group_size/);
    return isSqlloadError(error) ? error.code : "not a SqlloadError";
  }
  return undefined;
}

describe("memorySettings", () => {
  it("has row groups of 32,768 rows and a 256 MB limit when unset", () => {
    expect(memorySettings({})).toEqual({
      memoryLimit: DEFAULT_MEMORY_LIMIT,
      rowGroupSize: DEFAULT_ROW_GROUP_SIZE,
      raisable: true,
    });
    expect(memorySettings({ memory_limit: "256MB" }).raisable).toBe(false);
    expect([DEFAULT_MEMORY_LIMIT, DEFAULT_ROW_GROUP_SIZE]).toEqual(["256MB", 32_768]);
  });

  it("takes what DuckDB reads as a size, and row group sizes DuckDB takes", () => {
    for (const size of ["1GB", "1.5GB", "512 MiB", "64mb", "-1", " 2GB "])
      expect(memorySettings({ memory_limit: size }).memoryLimit).toBe(size.trim());
    for (const rows of [2048, 16384, 122880]) expect(memorySettings({ row_group_size: rows }).rowGroupSize).toBe(rows);
  });

  it("refuses what DuckDB would not take, naming the key", () => {
    for (const value of ["lots", "100", "80%", "0MB", ""])
      expect(codeOf(() => memorySettings({ memory_limit: value }))).toBe("SL107");
    expect(codeOf(() => memorySettings({ memory_limit: 256 }))).toBe("SL103");
    // Not a multiple of DuckDB's vector size, none, or beyond what the file format takes.
    for (const value of [10000, 0, -2048, 245760, 2048.5])
      expect(codeOf(() => memorySettings({ row_group_size: value }))).toBe("SL107");
    expect(codeOf(() => memorySettings({ row_group_size: "16384" }))).toBe("SL103");
  });
});
