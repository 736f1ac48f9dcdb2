import { describe, expect, it } from "vitest";
import type { ProjectConfig } from "../config/project-config.js";
import type { TargetCapabilities } from "../connector/capabilities.js";
import { defineConnector } from "../connector/connector.js";
import { ProjectSession } from "./project-session.js";
import { MemorySource } from "./testing/memory-source.js";
import { MemoryTarget } from "./testing/memory-target.js";

const location = { file: "sqlload.toml" };
const config: ProjectConfig = {
  file: "/p/sqlload.toml",
  dir: "/p",
  target: { connector: "warehouse", schema: "raw", options: {}, location },
  sources: [{ name: "shop", connector: "code", options: {}, tables: [], location }],
  secrets: [],
} as unknown as ProjectConfig;

function session(options: { declared?: Partial<TargetCapabilities>; connection?: () => MemoryTarget; logged?: boolean }) {
  let connected = 0;
  const source = new MemorySource({ columns: [], rows: [], loggedState: options.logged });
  const offering = Object.assign(source, { listTables: async () => [{ name: "events", key: "events" }] });
  const connectors = {
    warehouse: defineConnector({
      manifest: { name: "warehouse", version: "1.0.0" },
      target: async () => {
        connected++;
        return (options.connection ?? (() => new MemoryTarget(options.declared)))();
      },
      ...(options.declared ? { targetCapabilities: options.declared } : {}),
    }),
    code: defineConnector({ manifest: { name: "code", version: "1.0.0" }, offersTables: true, source: async () => offering }),
  };
  const s = new ProjectSession(config, (name) => connectors[name as keyof typeof connectors]);
  return { session: s, connected: () => connected };
}

describe("ProjectSession.checkTargetSupports", () => {
  const dataThenLog = { commitModel: "data-then-log", loggedTablesSetting: "catalog_managed_commits" } as const;

  it("refuses a logged table on a data-then-log target before connecting to it", async () => {
    const { session: s, connected } = session({ declared: dataThenLog, logged: true });
    const tables = await s.tables();
    await expect(s.checkTargetSupports(tables)).rejects.toMatchObject({ code: "SL116" });
    expect(connected()).toBe(0);
  });

  it("lets stateless tables through, and anything on a target whose log shares the data's commit", async () => {
    const stateless = session({ declared: dataThenLog, logged: false });
    await expect(stateless.session.checkTargetSupports(await stateless.session.tables())).resolves.toBeUndefined();
    const transactional = session({ declared: {}, logged: true });
    await expect(transactional.session.checkTargetSupports(await transactional.session.tables())).resolves.toBeUndefined();
  });
});

describe("ProjectSession.targetConnection", () => {
  it("refuses a connection whose methods disagree with its capabilities", async () => {
    const broken = () => Object.assign(new MemoryTarget(), { lockTable: async () => ({ release: async () => {} }) });
    await expect(session({ connection: broken }).session.targetConnection()).rejects.toThrow(
      /connector "warehouse": its target declares capabilities its methods do not match: it has lockTable\(\)/,
    );
  });

  it("refuses a connection declaring other capabilities than its connector did", async () => {
    const { session: s } = session({
      declared: { commitModel: "transactional" },
      connection: () => new MemoryTarget({ commitModel: "staged" }),
    });
    await expect(s.targetConnection()).rejects.toMatchObject({ code: "SL406" });
    const agreeing = session({ declared: { locking: true } });
    await expect(agreeing.session.targetConnection()).resolves.toBeInstanceOf(MemoryTarget);
  });
});
