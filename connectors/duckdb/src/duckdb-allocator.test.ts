import { describe, expect, it } from "vitest";
import { ALLOCATOR_SETTINGS, settleAllocator } from "./duckdb-allocator.js";

describe("settleAllocator", () => {
  it("sets one arena where the environment says nothing", () => {
    const env: NodeJS.ProcessEnv = {};
    settleAllocator(env);
    expect(env.DUCKDB_JE_MALLOC_CONF).toBe(ALLOCATOR_SETTINGS);
    expect(ALLOCATOR_SETTINGS).toBe("narenas:1");
  });

  it("puts it before the user's settings, so that their own narenas wins, and only once", () => {
    const env: NodeJS.ProcessEnv = { DUCKDB_JE_MALLOC_CONF: "narenas:4,dirty_decay_ms:0" };
    settleAllocator(env);
    settleAllocator(env);
    expect(env.DUCKDB_JE_MALLOC_CONF).toBe("narenas:1,narenas:4,dirty_decay_ms:0");
  });

  it("takes an empty setting as none", () => {
    const env: NodeJS.ProcessEnv = { DUCKDB_JE_MALLOC_CONF: "" };
    settleAllocator(env);
    expect(env.DUCKDB_JE_MALLOC_CONF).toBe("narenas:1");
  });
});
