import { describe, expect, it } from "vitest";
import { defaultTargetCapabilities } from "../connector/capabilities.js";
import { checkLoggedTable, checkStrategy } from "./target-support.js";

describe("checkLoggedTable", () => {
  it("allows logged tables where the run log shares the data's commit", () => {
    expect(() => checkLoggedTable(defaultTargetCapabilities, "raw.t")).not.toThrow();
    expect(() => checkLoggedTable({ ...defaultTargetCapabilities, commitModel: "staged" }, "raw.t")).not.toThrow();
  });

  it("refuses them on a data-then-log target, naming the setting that would allow them", () => {
    const capabilities = {
      ...defaultTargetCapabilities,
      commitModel: "data-then-log" as const,
      loggedTablesSetting: "catalog_managed_commits",
    };
    expect(() => checkLoggedTable(capabilities, "raw.t")).toThrow(expect.objectContaining({ code: "SL116" }));
    try {
      checkLoggedTable(capabilities, "raw.t");
    } catch (error) {
      expect((error as { hint: string }).hint).toContain("`catalog_managed_commits`");
    }
  });
});

describe("checkStrategy", () => {
  const capabilities = { ...defaultTargetCapabilities, writeStrategies: ["append", "merge"] as const };
  it("passes a supported strategy and refuses another, listing what the target supports", () => {
    expect(() => checkStrategy(capabilities, "merge", "raw.t")).not.toThrow();
    expect(() => checkStrategy(capabilities, "delete_insert", "raw.t")).toThrow(
      /cannot load with `delete_insert`; it supports append, merge/,
    );
    expect(() => checkStrategy(capabilities, "replace", "raw.t")).toThrow(expect.objectContaining({ code: "SL212" }));
  });
});
