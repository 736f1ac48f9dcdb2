import { describe, expect, it } from "vitest";
import type { ProjectConfig, SourceConfig } from "../config/project-config.js";
import type { TableSettings } from "../config/table-settings.js";
import { defaultSourceCapabilities } from "../connector/capabilities.js";
import { defineConnector } from "../connector/connector.js";
import type { Column } from "../connector/logical-types.js";
import type { SourceConnection } from "../connector/source.js";
import { parseTableKey, targetTableFor } from "../connector/table-ref.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import { CHECKED_DESCRIPTION_MS, checkTables, isConfigError, recentDescription } from "./check-tables.js";
import { ProjectSession } from "./project-session.js";

// Sources written for this test: one that declares its columns without connecting (like a
// TypeScript module), one that needs a server, and one whose server refuses connections.
const columns = (kind: "int64" | "date"): Column[] => [{ name: "c", type: { kind } as Column["type"], nullable: false }];

function declaring(kinds: Record<string, "int64" | "date">): SourceConnection {
  return {
    capabilities: defaultSourceCapabilities,
    describeTable: async (request) => ({ columns: columns(kinds[request.table.key] ?? "int64") }),
    openTable: async () => {
      throw new Error("checking must read nothing");
    },
    close: async () => {},
  };
}

const connectors = {
  local: defineConnector({
    manifest: { name: "local", version: "0" },
    offersTables: true,
    source: async () => declaring({ d: "date" }),
  }),
  server: defineConnector({ manifest: { name: "server", version: "0" }, source: async () => declaring({}) }),
  down: defineConnector({
    manifest: { name: "down", version: "0" },
    source: async () => {
      throw new SqlloadError("SL304", "connect ECONNREFUSED", { retryable: true });
    },
  }),
};

function session(sources: Record<string, { connector: keyof typeof connectors; tables: Record<string, TableSettings> }>) {
  const where = (key: string) => ({ file: "sqlload.toml", line: 7, key });
  const config: ProjectConfig = {
    file: "/p/sqlload.toml",
    dir: "/p",
    secrets: [],
    target: { connector: "none", schema: "raw", options: {}, connect: { retries: 0, timeoutMs: 0 }, location: { file: "x" } },
    sources: Object.entries(sources).map(
      ([name, s]): SourceConfig => ({
        name,
        connector: s.connector,
        options: {},
        connect: { retries: 0, timeoutMs: 0 },
        location: { file: "sqlload.toml" },
        tables: Object.entries(s.tables).map(([key, settings]) => {
          const ref = parseTableKey(key);
          return { source: name, ref, target: targetTableFor("raw", name, ref), settings, options: {}, where };
        }),
      }),
    ),
  };
  const project = new ProjectSession(config, (name) => connectors[name as keyof typeof connectors]);
  return { project, tables: () => project.tables() };
}

describe("checkTables", () => {
  it("without connecting, checks the rules of kinds declared by sources that connect to nothing, at the setting's line", async () => {
    const s = session({
      ts: { connector: "local", tables: { i: { cursorColumn: "c", cursorEnd: "now" } } },
      pg: { connector: "server", tables: { j: { cursorColumn: "c", lookback: { micros: 1n, text: "1s" } } } },
    });
    const error = await checkTables(s.project, await s.tables(), {}, { connect: false }).catch((e) => e);
    expect(error).toMatchObject({ code: "SL207", location: { key: "cursor_end", line: 7 } });
  });

  it("connecting, checks every source's kinds too, and leaves a source that is down to its table's load", async () => {
    const bad = session({
      pg: { connector: "server", tables: { j: { cursorColumn: "c", lookback: { micros: 1n, text: "1s" } } } },
    });
    await expect(checkTables(bad.project, await bad.tables(), {}, { connect: false })).resolves.toBeInstanceOf(Map);
    await expect(checkTables(bad.project, await bad.tables(), {}, { connect: true })).rejects.toMatchObject({ code: "SL205" });
    const down = session({ x: { connector: "down", tables: { j: { cursorColumn: "c", cursorEnd: "now" } } } });
    await expect(checkTables(down.project, await down.tables(), {}, { connect: true })).resolves.toBeInstanceOf(Map);
  });

  it("needs one cursor kind for --start-cursor/--end-cursor, then parses them for it", async () => {
    const mixed = session({ ts: { connector: "local", tables: { i: { cursorColumn: "c" }, d: { cursorColumn: "c" } } } });
    await expect(
      checkTables(mixed.project, await mixed.tables(), { startCursor: "1" }, { connect: false }),
    ).rejects.toMatchObject({
      code: "SL204",
      message: expect.stringContaining("integer: raw.ts__i; date: raw.ts__d"),
    });
    const one = session({ ts: { connector: "local", tables: { i: { cursorColumn: "c" } } } });
    await expect(
      checkTables(one.project, await one.tables(), { startCursor: "2026-10-01" }, { connect: false }),
    ).rejects.toMatchObject({
      code: "SL113",
    });
    await expect(
      checkTables(one.project, await one.tables(), { startCursor: "9007199254740995" }, { connect: false }),
    ).resolves.toBeInstanceOf(Map);
    const none = session({ ts: { connector: "local", tables: { i: {} } } });
    await expect(checkTables(none.project, await none.tables(), { endCursor: "5" }, { connect: false })).rejects.toMatchObject({
      code: "SL204",
      message: expect.stringContaining("has no cursor column"),
    });
  });
});

describe("the descriptions checkTables read", () => {
  it("are those of the tables it described, none for a source that is down, each recent for 10 s", async () => {
    const s = session({
      ts: { connector: "local", tables: { i: { cursorColumn: "c" }, d: { cursorColumn: "c" } } },
      x: { connector: "down", tables: { j: { cursorColumn: "c" } } },
    });
    const tables = await s.tables();
    const before = Date.now();
    const described = await checkTables(s.project, tables, {}, { connect: true });
    const [i, d, j] = ["i", "d", "j"].map((key) => tables.find((t) => t.config.ref.key === key)!);
    expect(described.get(d!)?.info.columns).toEqual(columns("date"));
    expect(described.get(i!)?.info.columns).toEqual(columns("int64"));
    expect(described.has(j!)).toBe(false);
    const at = described.get(i!)!.at;
    expect(at).toBeGreaterThanOrEqual(before);
    expect(recentDescription(described, i!, at + CHECKED_DESCRIPTION_MS - 1)?.columns).toEqual(columns("int64"));
    expect(recentDescription(described, i!, at + CHECKED_DESCRIPTION_MS)).toBeUndefined();
    expect(recentDescription(described, j!, at)).toBeUndefined();
    expect(recentDescription(undefined, i!, at)).toBeUndefined();
  });
});

describe("isConfigError", () => {
  it("is true for project and cursor-kind errors, false for states of the data and outages", () => {
    expect(isConfigError(new SqlloadError("SL113", "x"))).toBe(true);
    expect(isConfigError(new SqlloadError("SL207", "x"))).toBe(true);
    expect(isConfigError(new SqlloadError("SL202", "needs a start"))).toBe(false);
    expect(isConfigError(new SqlloadError("SL206", "no such table"))).toBe(false);
    expect(isConfigError(new SqlloadError("SL308", "refused"))).toBe(false);
    expect(isConfigError(new Error("SL113"))).toBe(false);
  });
});
