import { describe, expect, it } from "vitest";
import { ALLOCATOR_SETTINGS, allocatorSettings, withAllocatorSettings } from "./duckdb-allocator.js";

describe("allocatorSettings", () => {
  it("is one arena where the environment says nothing", () => {
    expect(ALLOCATOR_SETTINGS).toBe("narenas:1");
    expect(allocatorSettings(undefined)).toBe("narenas:1");
    expect(allocatorSettings("")).toBe("narenas:1");
  });

  it("goes before the user's other settings", () => {
    expect(allocatorSettings("dirty_decay_ms:0,stats_print:true")).toBe("narenas:1,dirty_decay_ms:0,stats_print:true");
  });

  it("leaves the arenas to a user who sets them", () => {
    expect(allocatorSettings("narenas:4,dirty_decay_ms:0")).toBe("narenas:4,dirty_decay_ms:0");
    expect(allocatorSettings("dirty_decay_ms:0,narenas_ratio:2")).toBe("dirty_decay_ms:0,narenas_ratio:2");
  });
});

describe("withAllocatorSettings", () => {
  it("sets them only while the library loads, then gives the environment back", () => {
    const env: NodeJS.ProcessEnv = {};
    expect(withAllocatorSettings(() => env.DUCKDB_JE_MALLOC_CONF, env)).toBe("narenas:1");
    expect("DUCKDB_JE_MALLOC_CONF" in env).toBe(false);
    const given: NodeJS.ProcessEnv = { DUCKDB_JE_MALLOC_CONF: "stats_print:true" };
    expect(() =>
      withAllocatorSettings(() => {
        throw new Error("no library");
      }, given),
    ).toThrow("no library");
    expect(given.DUCKDB_JE_MALLOC_CONF).toBe("stats_print:true");
  });
});
