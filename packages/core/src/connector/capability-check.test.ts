import { describe, expect, it } from "vitest";
import { MemoryTarget } from "../run/testing/memory-target.js";
import { defaultSourceCapabilities, defaultTargetCapabilities } from "./capabilities.js";
import {
  checkSourceReader,
  checkTargetConnection,
  sourceCapabilityProblems,
  targetCapabilityProblems,
} from "./capability-check.js";
import { checkConnector, defineConnector } from "./connector.js";

const noop = async () => {};
const lock = async () => ({ release: noop });

describe("targetCapabilityProblems", () => {
  it("finds none where declaration and methods agree", () => {
    expect(targetCapabilityProblems(defaultTargetCapabilities, {})).toEqual([]);
    const staged = { ...defaultTargetCapabilities, commitModel: "staged" as const, locking: true };
    expect(targetCapabilityProblems(staged, { publish: noop, discard: noop, lockTable: lock })).toEqual([]);
  });

  it("names each disagreement", () => {
    const staged = { ...defaultTargetCapabilities, commitModel: "staged" as const };
    expect(targetCapabilityProblems(staged, { discard: noop })).toEqual(['commitModel is "staged" but it has no publish()']);
    expect(targetCapabilityProblems(defaultTargetCapabilities, { publish: noop, lockTable: lock })).toEqual([
      'it has publish() but commitModel is "transactional", not "staged"',
      "it has lockTable() but declares locking: false",
    ]);
    expect(targetCapabilityProblems({ ...defaultTargetCapabilities, locking: true }, {})).toEqual([
      "it declares locking: true but has no lockTable()",
    ]);
  });

  it("refuses values outside the contract", () => {
    const odd = { ...defaultTargetCapabilities, commitModel: "eventual", writeStrategies: ["upsert"] } as never;
    expect(targetCapabilityProblems(odd, {})).toEqual([
      'commitModel "eventual" is none of transactional, staged, data-then-log',
      'writeStrategies names unknown strategy "upsert"',
    ]);
    const misplaced = { ...defaultTargetCapabilities, loggedTablesSetting: "x" };
    expect(targetCapabilityProblems(misplaced, {})).toEqual([
      'loggedTablesSetting applies to commitModel "data-then-log" only, not "transactional"',
    ]);
    const noReplace = { ...defaultTargetCapabilities, replaceRecordAfterSwap: true, writeStrategies: ["append"] } as const;
    expect(targetCapabilityProblems(noReplace, {})).toEqual([
      "replaceRecordAfterSwap is declared, but writeStrategies lacks replace",
    ]);
    expect(targetCapabilityProblems({ ...defaultTargetCapabilities, replaceRecordAfterSwap: true }, {})).toEqual([]);
  });
});

describe("checkTargetConnection and checkSourceReader", () => {
  it("return the connection when it agrees and refuse it with SL406 naming its owner otherwise", () => {
    const target = new MemoryTarget({ commitModel: "staged" });
    expect(checkTargetConnection(target, "connector x")).toBe(target);
    target.publish = undefined;
    expect(() => checkTargetConnection(target, 'connector "x" (pkg-x)')).toThrow(
      /connector "x" \(pkg-x\): its target declares capabilities its methods do not match: commitModel is "staged" but it has no publish\(\)/,
    );
  });

  it("compares an opened table's firstCursorAtOrAfter with firstCursorLookup", () => {
    const reader = { read: () => (async function* () {})(), close: noop, firstCursorAtOrAfter: async () => null };
    expect(sourceCapabilityProblems({ ...defaultSourceCapabilities, firstCursorLookup: true }, reader)).toEqual([]);
    expect(() => checkSourceReader(reader, defaultSourceCapabilities, "the source of app.t")).toThrow(
      expect.objectContaining({ code: "SL406" }),
    );
  });
});

describe("checkConnector", () => {
  const manifest = { name: "x", version: "1.0.0" };
  it("fills a declaration in from the defaults, per the target's options", () => {
    const connector = defineConnector({
      manifest,
      target: async () => new MemoryTarget(),
      targetCapabilities: (options) =>
        options.catalog_managed_commits ? {} : { commitModel: "data-then-log", loggedTablesSetting: "catalog_managed_commits" },
    });
    expect(connector.targetCapabilities?.({})).toMatchObject({ commitModel: "data-then-log", locking: false });
    expect(connector.targetCapabilities?.({ catalog_managed_commits: true })?.commitModel).toBe("transactional");
  });

  it("refuses, when loaded, a declaration that cannot hold", () => {
    expect(() => defineConnector({ manifest, targetCapabilities: { locking: true } })).toThrow(
      /connector "x": its declaration .*declares target capabilities but has no target/,
    );
    expect(() => defineConnector({ manifest, targetOpenIsInert: () => true })).toThrow(
      /connector "x": its declaration .*says how its target opens but has no target/,
    );
    expect(() =>
      defineConnector({ manifest, target: async () => new MemoryTarget(), targetCapabilities: { writeStrategies: [] } }),
    ).toThrow(/writeStrategies lists no strategy/);
    const handMade = {
      manifest: { ...manifest, coreApi: 1 },
      configSchema: {},
      targetCapabilities: () => defaultTargetCapabilities,
    };
    expect(() => checkConnector(handMade, "sqlload-connector-x")).toThrow(/\(sqlload-connector-x\)/);
  });
});
