import { isSqlloadError } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { storageVersion } from "./duckdb-storage-version.js";

function codeOf(value: unknown): string | undefined {
  try {
    storageVersion(value);
  } catch (error) {
    expect((error as Error).message).toContain("storage_version");
    return isSqlloadError(error) ? error.code : "not a SqlloadError";
  }
  return undefined;
}

describe("storageVersion", () => {
  it("leaves DuckDB's own default unless set, and is a release or latest as given", () => {
    expect(storageVersion(undefined)).toBeUndefined();
    for (const value of ["v0.10.0", "v1.5.2", "latest", " v1.4.0 "]) expect(storageVersion(value)).toBe(value.trim());
  });

  it("refuses what DuckDB would not read as a version, naming the key", () => {
    for (const value of ["1.3.0", "v1.3", "V1.3.0", "newest", ""]) expect(codeOf(value)).toBe("SL107");
    expect(codeOf(13)).toBe("SL103");
  });
});
