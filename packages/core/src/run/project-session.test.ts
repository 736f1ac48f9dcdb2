import { describe, expect, it } from "vitest";
import type { ProjectConfig } from "../config/project-config.js";
import type { TargetCapabilities } from "../connector/capabilities.js";
import { defineConnector } from "../connector/connector.js";
import { SqlloadError } from "../errors/sqlload-error.js";
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

describe("ProjectSession.openTargetEarly", () => {
  function early(inert: boolean | undefined, attempts: (() => MemoryTarget)[] = []) {
    let opened = 0;
    let closed = 0;
    const target = () => {
      const make = attempts[opened++] ?? (() => new MemoryTarget());
      return Object.assign(make(), { close: async () => void closed++ });
    };
    const warehouse = defineConnector({
      manifest: { name: "warehouse", version: "1.0.0" },
      target: async () => target(),
      ...(inert === undefined ? {} : { targetOpenIsInert: () => inert }),
    });
    const connect = { retries: 2, timeoutMs: 60 };
    const withPolicy = { ...config, target: { ...config.target, connect } } as ProjectConfig;
    const s = new ProjectSession(withPolicy, () => warehouse);
    return { session: s, opened: () => opened, closed: () => closed };
  }

  it("begins opening a target whose connector says opening changes nothing, and hands that connection on", async () => {
    const { session: s, opened } = early(true);
    s.openTargetEarly();
    s.openTargetEarly();
    expect(opened()).toBe(1);
    const connection = await s.targetConnection();
    expect(await s.targetConnection()).toBe(connection);
    expect(opened()).toBe(1);
  });

  it("waits for targetConnection when the connector does not say so, or says opening would change something", async () => {
    for (const inert of [undefined, false]) {
      const { session: s, opened } = early(inert);
      s.openTargetEarly();
      expect(opened()).toBe(0);
      await s.targetConnection();
      expect(opened()).toBe(1);
    }
  });

  it("settles once the connector's open has, while the connection is still being reached, and never rejects", async () => {
    let reached!: () => void;
    const reaching = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let opened = false;
    const warehouse = defineConnector({
      manifest: { name: "warehouse", version: "1.0.0" },
      targetOpenIsInert: () => true,
      target: async () => {
        // A driver loading, then a file beginning to open.
        await new Promise((resolve) => setTimeout(resolve, 5));
        opened = true;
        return Object.assign(new MemoryTarget(), { connect: () => reaching });
      },
    });
    const s = new ProjectSession(config, () => warehouse);
    await s.openTargetEarly();
    expect(opened).toBe(true);
    let connected = false;
    const connection = s.targetConnection().then((c) => {
      connected = true;
      return c;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(connected).toBe(false);
    reached();
    await expect(connection).resolves.toBeInstanceOf(MemoryTarget);
    // A refused open settles it too: targetConnection reports (and retries) it.
    const refused = early(true, [
      () => {
        throw new SqlloadError("SL305", "password authentication failed");
      },
    ]);
    await expect(refused.session.openTargetEarly()).resolves.toBeUndefined();
    await expect(refused.session.targetConnection()).rejects.toThrow(/password authentication failed/);
  });

  it("closes a target opened early that nothing used (a check failed)", async () => {
    const { session: s, opened, closed } = early(true);
    s.openTargetEarly();
    await s.close();
    expect([opened(), closed()]).toEqual([1, 1]);
  });

  it("counts a refused early attempt as the first of targetConnection's retried attempts", async () => {
    const refused = () => {
      throw new SqlloadError("SL304", "connection refused", { retryable: true });
    };
    const { session: s, opened } = early(true, [refused]);
    s.openTargetEarly();
    await expect(s.targetConnection()).resolves.toBeInstanceOf(MemoryTarget);
    expect(opened()).toBe(2);
    // Not retryable: reported as it is, without another attempt.
    const denied = () => {
      throw new SqlloadError("SL305", "password authentication failed");
    };
    const failing = early(true, [denied]);
    failing.session.openTargetEarly();
    await expect(failing.session.targetConnection()).rejects.toThrow(/password authentication failed/);
    expect(failing.opened()).toBe(1);
  });
});
